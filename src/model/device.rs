//! `--platform device:N`: describe the N-th OpenCL device of this machine (devices of all
//! platforms, in the loader's order) by querying it.
//!
//! Like `runtime::clbuild`, this needs no OpenCL crate or headers: a small C probe, compiled
//! with `cc` on first use and cached in the temporary directory, `dlopen`s the ICD loader and
//! prints the device's facts. What OpenCL does not tell (bank layout, registers, resident
//! blocks, bandwidth, the thresholds) gets the defaults of the vendor's shipped platforms, and
//! the description says so.

use std::process::Command;
use std::sync::OnceLock;

use super::platform::{Platform, DEFAULT_THETA_R, DEFAULT_THETA_S};

const PROBE_C: &str = r#"
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef void *handle;
typedef cl_int (*get_platform_ids_t)(cl_uint, handle *, cl_uint *);
typedef cl_int (*get_device_ids_t)(handle, cl_ulong, cl_uint, handle *, cl_uint *);
typedef cl_int (*get_info_t)(handle, cl_uint, size_t, void *, size_t *);

static get_info_t info;
static cl_uint u32(handle d, cl_uint p) { cl_uint v = 0; if (info(d, p, sizeof v, &v, NULL)) v = 0; return v; }
static cl_ulong u64(handle d, cl_uint p) { cl_ulong v = 0; if (info(d, p, sizeof v, &v, NULL)) v = 0; return v; }
static size_t sz(handle d, cl_uint p) { size_t v = 0; if (info(d, p, sizeof v, &v, NULL)) v = 0; return v; }
static void str(handle d, cl_uint p, const char *key) {
    char s[256] = {0};
    if (info(d, p, sizeof s - 1, s, NULL)) s[0] = 0;
    for (char *c = s; *c; c++) if (*c == '\n' || *c == '\r') *c = ' ';
    printf("%s=%s\n", key, s);
}

/* Exit codes: 0 found, 2 no runtime or no such device (message on stdout). */
int main(int argc, char **argv) {
    int want = argc > 1 ? atoi(argv[1]) : 0;
    void *lib = dlopen("libOpenCL.so.1", RTLD_NOW);
    if (!lib) lib = dlopen("libOpenCL.so", RTLD_NOW);
    if (!lib) { printf("no OpenCL ICD loader (libOpenCL.so.1)\n"); return 2; }
    get_platform_ids_t gp = (get_platform_ids_t)dlsym(lib, "clGetPlatformIDs");
    get_device_ids_t gd = (get_device_ids_t)dlsym(lib, "clGetDeviceIDs");
    info = (get_info_t)dlsym(lib, "clGetDeviceInfo");
    if (!gp || !gd || !info) { printf("the OpenCL loader lacks clGetPlatformIDs/clGetDeviceIDs/clGetDeviceInfo\n"); return 2; }
    handle plats[16]; cl_uint np = 0;
    if (gp(16, plats, &np) != 0 || np == 0) { printf("no OpenCL platform\n"); return 2; }
    if (np > 16) np = 16;
    int seen = 0;
    for (cl_uint i = 0; i < np; i++) {
        handle devs[64]; cl_uint nd = 0;
        if (gd(plats[i], 0xFFFFFFFFu, 64, devs, &nd) != 0) continue;
        if (nd > 64) nd = 64;
        for (cl_uint j = 0; j < nd; j++, seen++) {
            if (seen != want) continue;
            handle d = devs[j];
            str(d, 0x102B, "name");
            str(d, 0x102C, "vendor");
            cl_ulong type = u64(d, 0x1000);
            printf("type=%s\n", (type & 4) ? "gpu" : (type & 2) ? "cpu" : "other");
            printf("compute_units=%u\n", u32(d, 0x1002));
            printf("max_work_group=%zu\n", sz(d, 0x1004));
            size_t items[3] = {0, 0, 0};
            if (info(d, 0x1005, sizeof items, items, NULL)) items[0] = items[1] = items[2] = 0;
            printf("max_items=%zu %zu %zu\n", items[0], items[1], items[2]);
            printf("clock_mhz=%u\n", u32(d, 0x100C));
            printf("local_mem=%llu\n", (unsigned long long)u64(d, 0x1023));
            printf("cacheline=%u\n", u32(d, 0x101D));
            printf("warp_nv=%u\n", u32(d, 0x4003));
            printf("wavefront_amd=%u\n", u32(d, 0x4043));
            return 0;
        }
    }
    printf("no OpenCL device %d (this machine has %d)\n", want, seen);
    return 2;
}
"#;

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn probe() -> &'static Result<std::path::PathBuf, String> {
    static P: OnceLock<Result<std::path::PathBuf, String>> = OnceLock::new();
    P.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("accshare-device-{:016x}", fnv(PROBE_C)));
        let exe = dir.join("probe");
        if exe.is_file() {
            return Ok(exe);
        }
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {}", dir.display(), e))?;
        let tag = std::process::id();
        let c = dir.join(format!("probe-{}.c", tag));
        let tmp = dir.join(format!("probe-{}", tag));
        std::fs::write(&c, PROBE_C).map_err(|e| format!("cannot write {}: {}", c.display(), e))?;
        let out = Command::new("cc")
            .arg("-O1")
            .arg("-o")
            .arg(&tmp)
            .arg(&c)
            .arg("-ldl")
            .output();
        let _ = std::fs::remove_file(&c);
        let out =
            out.map_err(|e| format!("no C compiler to build the device probe (`cc`: {})", e))?;
        if !out.status.success() {
            let _ = std::fs::remove_file(&tmp);
            return Err(format!(
                "`cc` cannot build the device probe: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        std::fs::rename(&tmp, &exe)
            .map_err(|e| format!("cannot move the device probe into place: {}", e))?;
        Ok(exe)
    })
}

/// The facts the probe prints, as `key=value` lines.
pub fn query(index: usize) -> Result<String, String> {
    let exe = probe().as_ref().map_err(|e| e.clone())?;
    let out = Command::new(exe)
        .arg(index.to_string())
        .output()
        .map_err(|e| format!("cannot run the device probe: {}", e))?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        Ok(text)
    } else {
        Err(text.trim().to_string())
    }
}

/// A platform from the probe's facts (separate from [`query`] so that it can be tested).
pub fn from_facts(index: usize, facts: &str) -> Result<Platform, String> {
    let get = |k: &str| -> Option<&str> {
        facts
            .lines()
            .find_map(|l| l.strip_prefix(k).and_then(|r| r.strip_prefix('=')))
            .map(str::trim)
    };
    let num = |k: &str| -> u64 { get(k).and_then(|v| v.parse().ok()).unwrap_or(0) };
    let name = get("name").unwrap_or("?").to_string();
    let vendor_text = get("vendor").unwrap_or("").to_lowercase();
    let kind = get("type").unwrap_or("other");
    let cpu = kind == "cpu";
    let vendor = if vendor_text.contains("nvidia") {
        "nvidia"
    } else if vendor_text.contains("amd") || vendor_text.contains("advanced micro") {
        if cpu {
            "pocl"
        } else {
            "amd"
        }
    } else if cpu {
        "pocl"
    } else {
        "other"
    };
    let warp = match (num("warp_nv"), num("wavefront_amd")) {
        (w, _) if w > 0 => w,
        (_, w) if w > 0 => w,
        _ if cpu => 8,
        _ if vendor == "amd" => 64,
        _ => 32,
    };
    let max_wg = num("max_work_group").clamp(1, 65536);
    let items: Vec<u64> = get("max_items")
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    let item = |i: usize| {
        items
            .get(i)
            .copied()
            .filter(|v| *v > 0)
            .unwrap_or(max_wg)
            .min(max_wg)
    };
    let local = num("local_mem").max(1024);
    let line = num("cacheline");
    let tran = if line.is_power_of_two() && line >= 16 {
        line
    } else {
        128
    };
    let p = Platform {
        name: format!("device:{}", index),
        description: format!(
            "{} (OpenCL device {}, queried; banks, registers and bandwidth are defaults)",
            name, index
        ),
        vendor: vendor.to_string(),
        source: format!("device:{}", index),
        warp_size: to_u32(warp),
        max_threads_per_block: to_u32(max_wg),
        max_block_dims: [to_u32(item(0)), to_u32(item(1)), to_u32(item(2))],
        max_threads_per_sm: to_u32(if cpu { max_wg } else { (max_wg * 2).max(warp) }),
        max_blocks_per_sm: if cpu { 1 } else { 16 },
        registers_per_sm: 65536,
        sm_count: to_u32(num("compute_units").max(1)),
        clock_mhz: to_u32(num("clock_mhz").max(1)),
        smem_per_sm: local,
        smem_per_block: local,
        banks: if cpu { 1 } else { 32 },
        bank_width: to_u32(if cpu { tran } else { 4 }),
        shared_lanes: to_u32(warp.min(32)),
        transaction_bytes: to_u32(tran),
        sector_bytes: to_u32(if cpu { tran } else { tran.min(32) }),
        bandwidth_gbs: 0.0,
        theta_s: DEFAULT_THETA_S,
        theta_r: DEFAULT_THETA_R,
    };
    p.validate()
        .map_err(|m| format!("device:{}: {}", index, m))?;
    Ok(p)
}

/// A queried count as the model's `u32` (saturating: no device has more).
fn to_u32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// Queries the N-th OpenCL device.
pub fn load(index: usize) -> Result<Platform, String> {
    let facts = query(index)?;
    from_facts(index, &facts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_of_a_pocl_device() {
        let facts = "name=pthread-skylake-avx512-AMD EPYC\nvendor=AuthenticAMD\ntype=cpu\n\
                     compute_units=2\nmax_work_group=4096\nmax_items=4096 4096 4096\nclock_mhz=2596\n\
                     local_mem=1048576\ncacheline=64\nwarp_nv=0\nwavefront_amd=0\n";
        let p = from_facts(0, facts).unwrap();
        assert_eq!(p.name, "device:0");
        assert_eq!(
            (p.warp_size, p.max_threads_per_block, p.smem_per_sm),
            (8, 4096, 1048576)
        );
        assert_eq!(
            (p.transaction_bytes, p.sm_count, p.clock_mhz),
            (64, 2, 2596)
        );
        assert_eq!(p.vendor, "pocl");
    }

    #[test]
    fn facts_of_an_nvidia_gpu() {
        let facts = "name=NVIDIA A100\nvendor=NVIDIA Corporation\ntype=gpu\ncompute_units=108\n\
                     max_work_group=1024\nmax_items=1024 1024 64\nclock_mhz=1410\nlocal_mem=49152\n\
                     cacheline=128\nwarp_nv=32\nwavefront_amd=0\n";
        let p = from_facts(1, facts).unwrap();
        assert_eq!(
            (p.warp_size, p.max_block_dims, p.max_threads_per_sm),
            (32, [1024, 1024, 64], 2048)
        );
        assert_eq!((p.banks, p.bank_width, p.sector_bytes), (32, 4, 32));
        // The name is kept as the device reports it, quotes and backslashes included.
        let p = from_facts(0, &facts.replace("NVIDIA A100", "x\"y\\z")).unwrap();
        assert!(p.description.starts_with("x\"y\\z (OpenCL device 0"));
    }

    #[test]
    fn live_device_or_skip() {
        match load(0) {
            Ok(p) => assert!(p.max_threads_per_block >= 1),
            Err(e) => println!("SKIP: {}", e),
        }
        assert!(load(9999).is_err());
    }
}
