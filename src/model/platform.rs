//! Platform descriptions: `platforms/NAME.toml`.
//!
//! The files use a small subset of TOML, read by [`parse_toml`] (no serde, no toml crate: the
//! format is flat and a reader of 100 lines keeps the build fast): `[section]` headers,
//! `key = value` with integers, floats and double-quoted strings, `#` comments. Every key the
//! model needs is required and unknown keys are errors, so a typo cannot silently fall back to a
//! default.
//!
//! The shipped files are embedded with `include_str!`, so the binary works from any directory;
//! `Platform::load` takes a shipped name (`gtx690`) or the path of a `.toml` file.

use std::collections::BTreeMap;

/// What the model knows about a target. Sizes in bytes, counts per SM (compute unit).
#[derive(Clone, Debug, PartialEq)]
pub struct Platform {
    /// Short name (`gtx690`).
    pub name: String,
    pub description: String,
    pub vendor: String,
    /// Where it came from: `builtin` or the file path.
    pub source: String,
    /// Warp / wavefront size (threads that issue one memory instruction together).
    pub warp_size: u32,
    pub max_threads_per_block: u32,
    /// Maximum block extent per dimension (x, y, z).
    pub max_block_dims: [u32; 3],
    pub max_threads_per_sm: u32,
    pub max_blocks_per_sm: u32,
    pub registers_per_sm: u32,
    pub sm_count: u32,
    pub clock_mhz: u32,
    /// Shared memory (local memory, LDS) of one SM: the paper's `SMSize`.
    pub smem_per_sm: u64,
    /// The most one thread block may allocate.
    pub smem_per_block: u64,
    pub banks: u32,
    pub bank_width: u32,
    /// Global memory transaction size: the paper's `TranSize`.
    pub transaction_bytes: u32,
    pub sector_bytes: u32,
    /// Peak bandwidth in GB/s (reports only).
    pub bandwidth_gbs: f64,
    /// θ_s: fraction of `SMSize` one thread block may use for shared arrays (constraint (9)).
    pub theta_s: f64,
    /// θ_r: an array is in the ReuseSet when `ReuseSize ≥ θ_r·|DS|` (equation (3)).
    pub theta_r: f64,
}

/// The platforms shipped with accshare: (name, file text).
pub const BUILTIN: &[(&str, &str)] = &[
    ("gtx690", include_str!("../../platforms/gtx690.toml")),
    ("gtx-titan", include_str!("../../platforms/gtx-titan.toml")),
    ("hd7850", include_str!("../../platforms/hd7850.toml")),
    ("c2050", include_str!("../../platforms/c2050.toml")),
    ("a100", include_str!("../../platforms/a100.toml")),
    ("h100", include_str!("../../platforms/h100.toml")),
    ("mi300x", include_str!("../../platforms/mi300x.toml")),
    ("rx7900xtx", include_str!("../../platforms/rx7900xtx.toml")),
    ("pocl-cpu", include_str!("../../platforms/pocl-cpu.toml")),
];

/// The platform used when none is given (the paper's first target).
pub const DEFAULT_PLATFORM: &str = "gtx690";

/// A value of the TOML subset.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Str(String),
}

impl Platform {
    /// Loads a shipped platform by name, or a platform file by path (anything ending in
    /// `.toml` or containing a path separator), or `device:N` (the N-th OpenCL device of this
    /// machine, queried: see `model::device`). A shipped name is looked up in the
    /// `platforms/` directory of the source tree first (so edits are seen without a rebuild),
    /// then in the copies embedded in the binary.
    pub fn load(name_or_path: &str) -> Result<Platform, String> {
        if let Some(n) = name_or_path.strip_prefix("device:") {
            let index: usize = n.trim().parse().map_err(|_| {
                format!(
                    "`{}`: expected `device:N` with N a device number",
                    name_or_path
                )
            })?;
            return super::device::load(index);
        }
        let is_path = name_or_path.ends_with(".toml")
            || name_or_path.contains('/')
            || name_or_path.contains('\\');
        if is_path {
            let text = std::fs::read_to_string(name_or_path)
                .map_err(|e| format!("cannot read platform file `{}`: {}", name_or_path, e))?;
            return Platform::parse(&text, name_or_path);
        }
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("platforms");
        let file = dir.join(format!("{}.toml", name_or_path));
        if BUILTIN.iter().any(|(n, _)| *n == name_or_path) {
            if let Ok(text) = std::fs::read_to_string(&file) {
                if let Ok(p) = Platform::parse(&text, &file.to_string_lossy()) {
                    return Ok(Platform {
                        source: "builtin".into(),
                        ..p
                    });
                }
            }
        }
        match BUILTIN.iter().find(|(n, _)| *n == name_or_path) {
            Some((n, text)) => Platform::parse(text, &format!("builtin:{}", n)).map(|p| Platform {
                source: "builtin".into(),
                ..p
            }),
            None => Err(format!(
                "unknown platform `{}` (known: {}; or give the path of a .toml file)",
                name_or_path,
                BUILTIN
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// Parses and validates a platform file. `origin` names it in messages.
    pub fn parse(text: &str, origin: &str) -> Result<Platform, String> {
        let map = parse_toml(text).map_err(|(line, m)| format!("{}:{}: {}", origin, line, m))?;
        let mut r = Reader {
            map,
            origin,
            used: Vec::new(),
        };
        let p = Platform {
            name: r.string("name")?,
            description: r.string("description")?,
            vendor: r.string("vendor")?,
            source: origin.to_string(),
            warp_size: r.uint("simt.warp_size")?,
            max_threads_per_block: r.uint("simt.max_threads_per_block")?,
            max_block_dims: [
                r.uint("simt.max_block_x")?,
                r.uint("simt.max_block_y")?,
                r.uint("simt.max_block_z")?,
            ],
            max_threads_per_sm: r.uint("simt.max_threads_per_sm")?,
            max_blocks_per_sm: r.uint("simt.max_blocks_per_sm")?,
            registers_per_sm: r.uint("simt.registers_per_sm")?,
            sm_count: r.uint("simt.sm_count")?,
            clock_mhz: r.uint("simt.clock_mhz")?,
            smem_per_sm: r.uint("shared.bytes_per_sm")? as u64,
            smem_per_block: r.uint("shared.max_bytes_per_block")? as u64,
            banks: r.uint("shared.banks")?,
            bank_width: r.uint("shared.bank_width")?,
            transaction_bytes: r.uint("global.transaction_bytes")?,
            sector_bytes: r.uint("global.sector_bytes")?,
            bandwidth_gbs: r.float("global.bandwidth_gbs")?,
            theta_s: r.float("model.theta_s")?,
            theta_r: r.float("model.theta_r")?,
        };
        r.no_unknown_keys()?;
        p.validate().map_err(|m| format!("{}: {}", origin, m))?;
        Ok(p)
    }

    /// Consistency checks (the model divides by several of these).
    pub fn validate(&self) -> Result<(), String> {
        let pow2 = |v: u32| v.is_power_of_two();
        if !pow2(self.warp_size) {
            return Err(format!(
                "warp_size {} is not a power of two",
                self.warp_size
            ));
        }
        if !pow2(self.transaction_bytes) || !pow2(self.sector_bytes) {
            return Err("transaction_bytes and sector_bytes must be powers of two".into());
        }
        if !pow2(self.banks) || !pow2(self.bank_width) {
            return Err("banks and bank_width must be powers of two".into());
        }
        if self.max_threads_per_block > 65536 || self.max_threads_per_sm > 1 << 20 {
            return Err(
                "thread limits above 65536 per block or 2^20 per SM are not plausible".into(),
            );
        }
        if self.max_threads_per_block > self.max_threads_per_sm {
            return Err(format!(
                "max_threads_per_block ({}) exceeds max_threads_per_sm ({})",
                self.max_threads_per_block, self.max_threads_per_sm
            ));
        }
        if self
            .max_block_dims
            .iter()
            .any(|&d| d > self.max_threads_per_block)
        {
            return Err("a max_block_* extent exceeds max_threads_per_block".into());
        }
        if self.smem_per_block > self.smem_per_sm {
            return Err(format!(
                "shared max_bytes_per_block ({}) exceeds bytes_per_sm ({})",
                self.smem_per_block, self.smem_per_sm
            ));
        }
        if !(self.theta_s > 0.0 && self.theta_s <= 1.0) {
            return Err(format!("theta_s = {} is not in (0, 1]", self.theta_s));
        }
        if !(self.theta_r > 0.0 && self.theta_r.is_finite()) {
            return Err(format!(
                "theta_r = {} is not a positive number",
                self.theta_r
            ));
        }
        if !(self.bandwidth_gbs >= 0.0 && self.bandwidth_gbs.is_finite()) {
            return Err("bandwidth_gbs must be a non-negative number".into());
        }
        Ok(())
    }

    /// The shared memory one block may use under constraint (9): `min(θ_s·SMSize, per-block max)`.
    pub fn smem_budget(&self) -> u64 {
        let t = (self.theta_s * self.smem_per_sm as f64).floor() as u64;
        t.min(self.smem_per_block)
    }

    /// Thread blocks resident on one SM for a block of `threads` threads using `smem` bytes.
    pub fn resident_blocks(&self, threads: u64, smem: u64) -> u64 {
        if threads == 0 {
            return 0;
        }
        let by_threads = self.max_threads_per_sm as u64 / threads;
        let by_smem = self.smem_per_sm.checked_div(smem).unwrap_or(u64::MAX);
        by_threads.min(by_smem).min(self.max_blocks_per_sm as u64)
    }
}

/// `accshare platforms`: one line per shipped platform.
pub fn list_platforms() -> String {
    let mut out = String::new();
    for (name, _) in BUILTIN {
        match Platform::load(name) {
            Ok(p) => out.push_str(&format!(
                "{:<10} {:<48} warp {:>2}, shared {} KB/SM ({} KB/block), {} SMs\n",
                p.name,
                p.description,
                p.warp_size,
                p.smem_per_sm / 1024,
                p.smem_per_block / 1024,
                p.sm_count
            )),
            Err(e) => out.push_str(&format!("{:<10} error: {}\n", name, e)),
        }
    }
    out.push_str("device:N   the N-th OpenCL device of this machine, queried\n");
    out.push_str("FILE.toml  a platform file (see platforms/*.toml for the keys)\n");
    out
}

struct Reader<'a> {
    map: BTreeMap<String, (usize, Value)>,
    origin: &'a str,
    used: Vec<String>,
}

impl Reader<'_> {
    fn get(&mut self, key: &str) -> Result<(usize, Value), String> {
        self.used.push(key.to_string());
        self.map
            .get(key)
            .cloned()
            .ok_or_else(|| format!("{}: missing key `{}`", self.origin, key))
    }
    fn string(&mut self, key: &str) -> Result<String, String> {
        match self.get(key)? {
            (_, Value::Str(s)) => Ok(s),
            (l, _) => Err(format!("{}:{}: `{}` must be a string", self.origin, l, key)),
        }
    }
    fn uint(&mut self, key: &str) -> Result<u32, String> {
        match self.get(key)? {
            (_, Value::Int(v)) if v > 0 && v <= u32::MAX as i64 => Ok(v as u32),
            (l, _) => Err(format!(
                "{}:{}: `{}` must be a positive integer",
                self.origin, l, key
            )),
        }
    }
    fn float(&mut self, key: &str) -> Result<f64, String> {
        match self.get(key)? {
            (_, Value::Float(v)) => Ok(v),
            (_, Value::Int(v)) => Ok(v as f64),
            (l, _) => Err(format!("{}:{}: `{}` must be a number", self.origin, l, key)),
        }
    }
    fn no_unknown_keys(&self) -> Result<(), String> {
        for (k, (l, _)) in &self.map {
            if !self.used.contains(k) {
                return Err(format!("{}:{}: unknown key `{}`", self.origin, l, k));
            }
        }
        Ok(())
    }
}

/// Reads the TOML subset into `section.key → (line, value)` (top-level keys have no section
/// prefix). Errors carry the 1-based line.
pub fn parse_toml(text: &str) -> Result<BTreeMap<String, (usize, Value)>, (usize, String)> {
    let mut out = BTreeMap::new();
    let mut section = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = strip_comment(raw).trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('[') {
            let name = rest
                .strip_suffix(']')
                .ok_or((line_no, "a section header must end with `]`".to_string()))?
                .trim();
            if !is_bare_key(name) {
                return Err((line_no, format!("bad section name `{}`", name)));
            }
            section = name.to_string();
            continue;
        }
        let (k, v) = line
            .split_once('=')
            .ok_or((line_no, "expected `key = value`".to_string()))?;
        let k = k.trim();
        if !is_bare_key(k) {
            return Err((line_no, format!("bad key `{}`", k)));
        }
        let value = parse_value(v.trim()).map_err(|m| (line_no, m))?;
        let full = if section.is_empty() {
            k.to_string()
        } else {
            format!("{}.{}", section, k)
        };
        if out.insert(full.clone(), (line_no, value)).is_some() {
            return Err((line_no, format!("duplicate key `{}`", full)));
        }
    }
    Ok(out)
}

fn is_bare_key(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Removes a `#` comment that is not inside a string.
fn strip_comment(line: &str) -> &str {
    let mut in_str = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match c {
            '\\' if in_str && !escaped => {
                escaped = true;
                continue;
            }
            '"' if !escaped => in_str = !in_str,
            '#' if !in_str => return &line[..i],
            _ => {}
        }
        escaped = false;
    }
    line
}

fn parse_value(v: &str) -> Result<Value, String> {
    if let Some(body) = v.strip_prefix('"') {
        let body = body
            .strip_suffix('"')
            .ok_or_else(|| "unterminated string".to_string())?;
        let mut s = String::new();
        let mut chars = body.chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('n') => s.push('\n'),
                    Some('t') => s.push('\t'),
                    Some('"') => s.push('"'),
                    Some('\\') => s.push('\\'),
                    other => {
                        return Err(format!("unsupported escape `\\{}`", other.unwrap_or(' ')))
                    }
                }
            } else if c == '"' {
                return Err("unescaped `\"` inside a string".into());
            } else {
                s.push(c);
            }
        }
        return Ok(Value::Str(s));
    }
    let clean: String = v.chars().filter(|&c| c != '_').collect();
    if clean.is_empty() {
        return Err("missing value".into());
    }
    if let Ok(i) = clean.parse::<i64>() {
        return Ok(Value::Int(i));
    }
    if clean
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        if let Ok(f) = clean.parse::<f64>() {
            if f.is_finite() {
                return Ok(Value::Float(f));
            }
        }
    }
    Err(format!(
        "unsupported value `{}` (integers, floats and \"strings\" only)",
        v
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_platform_loads_and_validates() {
        for (name, _) in BUILTIN {
            let p = Platform::load(name).unwrap_or_else(|e| panic!("{}: {}", name, e));
            assert_eq!(&p.name, name);
            assert_eq!(p.source, "builtin");
        }
    }

    #[test]
    fn paper_table3_figures() {
        let p = Platform::load("gtx690").unwrap();
        assert_eq!(p.smem_per_sm, 48 * 1024);
        assert_eq!(p.clock_mhz, 915);
        assert_eq!(p.theta_s, 0.25);
        // (13): 0.25 × 48 × 1024 = 12288 bytes per thread block.
        assert_eq!(p.smem_budget(), 12288);
        let hd = Platform::load("hd7850").unwrap();
        assert_eq!(hd.smem_per_sm, 64 * 1024);
        assert_eq!(hd.smem_per_block, 32 * 1024);
        assert_eq!(hd.warp_size, 64);
        let t = Platform::load("gtx-titan").unwrap();
        assert_eq!((t.clock_mhz, t.bandwidth_gbs), (837, 288.4));
        let c = Platform::load("c2050").unwrap();
        assert_eq!((c.clock_mhz, c.bandwidth_gbs), (1150, 144.0));
    }

    #[test]
    fn load_by_path_and_list() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/platforms/h100.toml");
        let p = Platform::load(path).unwrap();
        assert_eq!((p.name.as_str(), p.source.as_str()), ("h100", path));
        assert_eq!(p.smem_per_block, 232448);
        let list = list_platforms();
        assert!(list.lines().count() == BUILTIN.len() + 2, "{}", list);
        assert!(list.starts_with("gtx690 "), "{}", list);
        assert!(Platform::load("device:x")
            .unwrap_err()
            .contains("expected `device:N`"));
    }

    #[test]
    fn resident_blocks() {
        let p = Platform::load("gtx690").unwrap();
        assert_eq!(p.resident_blocks(1024, 8192), 2);
        assert_eq!(p.resident_blocks(64, 0), 16);
        assert_eq!(p.resident_blocks(128, 24576), 2);
    }

    #[test]
    fn toml_subset() {
        let m = parse_toml("# c\nname = \"a # b\" # c\n[s]\nx = 1_024\ny = 0.25\n").unwrap();
        assert_eq!(m["name"].1, Value::Str("a # b".into()));
        assert_eq!(m["s.x"].1, Value::Int(1024));
        assert_eq!(m["s.y"].1, Value::Float(0.25));
        assert_eq!(parse_toml("[s\n").unwrap_err().0, 1);
        assert_eq!(parse_toml("a = 1\na = 2\n").unwrap_err().0, 2);
        assert!(parse_toml("a = [1, 2]\n").is_err());
        assert!(parse_toml("a = \"x\n").is_err());
        assert!(parse_toml("just words\n").is_err());
    }

    #[test]
    fn errors_name_the_line_and_key() {
        let text = BUILTIN[0].1.replace("warp_size = 32", "warp_size = 33");
        let e = Platform::parse(&text, "t.toml").unwrap_err();
        assert_eq!(e, "t.toml: warp_size 33 is not a power of two");
        let text = BUILTIN[0]
            .1
            .replace("theta_r = 1.5", "theta_r = 1.5\ntheta_x = 2");
        let e = Platform::parse(&text, "t.toml").unwrap_err();
        assert!(e.contains("unknown key `model.theta_x`"), "{}", e);
        let text = BUILTIN[0].1.replace("sm_count = 8\n", "");
        let e = Platform::parse(&text, "t.toml").unwrap_err();
        assert_eq!(e, "t.toml: missing key `simt.sm_count`");
        assert!(Platform::load("nosuch")
            .unwrap_err()
            .contains("unknown platform"));
        assert!(Platform::load("/nonexistent/x.toml").is_err());
    }
}
