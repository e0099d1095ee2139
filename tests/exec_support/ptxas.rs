//! Registers per kernel as `ptxas -v` counts them: nvcc (which runs ptxas) from the PyPI toolkit
//! `.ci/install-deps.sh` installs, found by `.ci/nvcc.sh`, else `nvcc` on `PATH`. Used by
//! `tests/regs.rs` (the estimate against ptxas) and `tests/sim.rs` (the gtx690 calibration).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// nvcc (which runs ptxas), or why there is none (looked up once per test binary).
pub fn find_nvcc() -> Result<PathBuf, String> {
    static CACHE: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    CACHE.get_or_init(probe_nvcc).clone()
}

fn probe_nvcc() -> Result<PathBuf, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/nvcc.sh");
    if let Ok(o) = Command::new("bash").arg(&script).output() {
        let p = String::from_utf8_lossy(&o.stdout).trim().to_string();
        if !p.is_empty() {
            return Ok(PathBuf::from(p));
        }
    }
    match Command::new("nvcc").arg("--version").output() {
        Ok(o) if o.status.success() => Ok(PathBuf::from("nvcc")),
        _ => Err(format!(
            "{} printed nothing and there is no `nvcc` on PATH; run `bash .ci/install-deps.sh`",
            script.display()
        )),
    }
}

/// (kernel, registers) of every entry function in a `ptxas -v` report.
pub fn parse_ptxas(text: &str) -> Vec<(String, i64)> {
    let mut out: Vec<(String, i64)> = Vec::new();
    for line in text.lines() {
        if let Some(rest) = line.split("Compiling entry function '").nth(1) {
            out.push((rest.split('\'').next().unwrap_or("").to_string(), -1));
        } else if let (Some(at), Some(last)) = (line.find(" registers"), out.last_mut()) {
            if line.contains("Used ") {
                last.1 = line[..at]
                    .split_whitespace()
                    .last()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(-1);
            }
        }
    }
    out
}

/// (kernel, registers) of every kernel of the CUDA source `cu` compiled by `nvcc -cubin -arch=sm
/// -Xptxas -v` in the scratch folder `dir`; panics when nvcc fails.
pub fn registers(nvcc: &Path, cu: &str, sm: &str, dir: &Path) -> Vec<(String, i64)> {
    std::fs::create_dir_all(dir).unwrap();
    let src = dir.join("k.cu");
    std::fs::write(&src, cu).unwrap();
    let o = Command::new(nvcc)
        .args(["-cubin", &format!("-arch={sm}"), "-Xptxas", "-v", "-o"])
        .arg(dir.join("k.cubin"))
        .arg(&src)
        .output()
        .expect("nvcc runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "nvcc failed:\n{text}");
    parse_ptxas(&text)
}
