//! The tune cache: what `accshare tune` measured, per device, in one JSON file.
//!
//! The file is `$ACCSHARE_CACHE_DIR/tune.json`, else `$XDG_CACHE_HOME/accshare/tune.json`, else
//! `$HOME/.cache/accshare/tune.json`. Each entry is one kernel on one device (named by its
//! OpenCL platform and device names, which stay the same across reboots, unlike its index).
//! A new measurement of a kernel replaces the older one for that device and size class. The
//! file is written whole to a temporary file and renamed, so a crash never leaves half a file.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::device::DeviceFacts;
use crate::schedule::tuned::{Tuned, TunedKernel};

/// Version of the file's layout; a file of another version is ignored (and replaced when a new
/// measurement is written).
pub const VERSION: u32 = 1;

/// The whole cache file.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CacheFile {
    pub version: u32,
    pub entries: Vec<Entry>,
}

impl Default for CacheFile {
    fn default() -> Self {
        CacheFile {
            version: VERSION,
            entries: Vec::new(),
        }
    }
}

/// One kernel measured on one device.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub device: String,
    #[serde(flatten)]
    pub kernel: TunedKernel,
}

/// How the cache names a device: `platform / device`.
pub fn device_key(facts: &DeviceFacts) -> String {
    format!("{} / {}", facts.platform, facts.name)
}

/// The cache file's path (see the module's documentation); `None` without any of the variables.
pub fn path() -> Option<PathBuf> {
    let var = |n: &str| {
        std::env::var_os(n)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let dir = var("ACCSHARE_CACHE_DIR")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("accshare")))
        .or_else(|| var("HOME").map(|d| d.join(".cache").join("accshare")))?;
    Some(dir.join("tune.json"))
}

/// Why the cache file cannot be read or written.
#[derive(Debug)]
pub enum CacheError {
    /// Reading, writing or renaming `path` (a file or the cache's folder) failed.
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The file at `path` is not JSON, or not a cache of this version.
    Parse {
        path: PathBuf,
        error: serde_json::Error,
    },
    /// The cache could not be serialized.
    Serialize(serde_json::Error),
}

impl fmt::Display for CacheError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CacheError::Io { path, error } => write!(f, "{}: {}", path.display(), error),
            CacheError::Parse { path, error } => write!(f, "{}: {}", path.display(), error),
            CacheError::Serialize(error) => write!(f, "{}", error),
        }
    }
}

impl std::error::Error for CacheError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CacheError::Io { error, .. } => Some(error),
            CacheError::Parse { error, .. } | CacheError::Serialize(error) => Some(error),
        }
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> CacheError + '_ {
    move |error| CacheError::Io {
        path: path.to_path_buf(),
        error,
    }
}

fn parse_error(path: &Path) -> impl FnOnce(serde_json::Error) -> CacheError + '_ {
    move |error| CacheError::Parse {
        path: path.to_path_buf(),
        error,
    }
}

/// Reads a cache file; a missing file is an empty cache, a file of another version too.
pub fn load(path: &Path) -> Result<CacheFile, CacheError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(CacheFile::default()),
        Err(e) => return Err(io_error(path)(e)),
    };
    let v: serde_json::Value = serde_json::from_str(&text).map_err(parse_error(path))?;
    if v.get("version").and_then(|v| v.as_u64()) != Some(VERSION as u64) {
        return Ok(CacheFile::default());
    }
    serde_json::from_value(v).map_err(parse_error(path))
}

/// Writes a cache file (creating its folder).
pub fn save(path: &Path, cache: &CacheFile) -> Result<(), CacheError> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    }
    let text = serde_json::to_string_pretty(cache).map_err(CacheError::Serialize)?;
    let tmp = path.with_extension(format!("json.{}", std::process::id()));
    std::fs::write(&tmp, text + "\n").map_err(io_error(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io_error(path))
}

impl CacheFile {
    /// Records measurements on `device`, replacing older ones of the same kernel and size class.
    pub fn record(&mut self, device: &str, kernels: impl IntoIterator<Item = TunedKernel>) {
        for k in kernels {
            self.entries.retain(|e| {
                !(e.device == device
                    && e.kernel.fingerprint == k.fingerprint
                    && e.kernel.size_class == k.size_class)
            });
            self.entries.push(Entry {
                device: device.to_string(),
                kernel: k,
            });
        }
    }

    /// The measurements of one device.
    pub fn tuned_for(&self, device: &str) -> Tuned {
        Tuned {
            device: device.to_string(),
            kernels: self
                .entries
                .iter()
                .filter(|e| e.device == device)
                .map(|e| e.kernel.clone())
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schedule::variant::Variant;
    use crate::schedule::ColLayout;

    fn kernel(fp: &str, class: Option<u32>, seconds: f64) -> TunedKernel {
        TunedKernel {
            fingerprint: fp.to_string(),
            size_class: class,
            name: "k".to_string(),
            file: "f.c".to_string(),
            variant: Variant {
                config: None,
                block: [64, 4, 1],
                ilp: 1,
                cols: 1,
                layout: ColLayout::Cyclic,
                skip: Vec::new(),
                diagonal: 0,
                words: false,
                lanes: false,
                ktile: 0,
                vector: 1,
            },
            seconds,
            model: Variant {
                config: Some(0),
                block: [32, 8, 1],
                ilp: 4,
                cols: 1,
                layout: ColLayout::Cyclic,
                skip: Vec::new(),
                diagonal: 0,
                words: false,
                lanes: false,
                ktile: 0,
                vector: 1,
            },
            model_seconds: Some(2.0 * seconds),
        }
    }

    #[test]
    fn a_new_measurement_replaces_the_old_one_of_its_device_and_size() {
        let mut c = CacheFile::default();
        c.record(
            "d1",
            [kernel("a", Some(20), 1.0), kernel("a", Some(22), 3.0)],
        );
        c.record("d2", [kernel("a", Some(20), 5.0)]);
        c.record("d1", [kernel("a", Some(20), 0.5)]);
        assert_eq!(c.entries.len(), 3);
        let t = c.tuned_for("d1");
        assert_eq!(t.kernels.len(), 2);
        assert_eq!(t.lookup("a", Some(20)).map(|k| k.seconds), Some(0.5));
        // The nearest size class, and the largest when the size is unknown.
        assert_eq!(t.lookup("a", Some(23)).map(|k| k.seconds), Some(3.0));
        assert_eq!(t.lookup("a", None).map(|k| k.seconds), Some(3.0));
        assert!(t.lookup("b", Some(20)).is_none());
    }

    #[test]
    fn the_file_round_trips_and_other_versions_are_ignored() {
        let dir = std::env::temp_dir().join(format!("accshare-cache-{}", std::process::id()));
        let p = dir.join("sub").join("tune.json");
        let mut c = CacheFile::default();
        c.record("d1", [kernel("a", Some(20), 1.0)]);
        save(&p, &c).unwrap();
        let back = load(&p).unwrap();
        assert_eq!(back.entries, c.entries);
        std::fs::write(&p, "{\"version\": 0, \"entries\": 7}").unwrap();
        assert!(load(&p).unwrap().entries.is_empty());
        std::fs::write(&p, "not json").unwrap();
        let e = load(&p).unwrap_err();
        assert!(matches!(e, CacheError::Parse { .. }), "{e:?}");
        assert!(
            e.to_string()
                .starts_with(&format!("{}: expected ident", p.display())),
            "{e}"
        );
        assert!(load(&dir.join("missing.json")).unwrap().entries.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
