//! `accshare devices`: what this machine can run generated code on — every OpenCL device (as
//! `--platform device:N` and `ACCSHARE_DEVICE=N` number them), every CUDA device the driver
//! reports (through cudarc, only after checking that the driver library loads: without a driver
//! cudarc would panic), and the NVRTC that compiles CUDA kernels here.

/// One OpenCL device: `device:N  name (vendor, type, compute units, local memory, work-group)`.
fn opencl_line(index: usize, facts: &str) -> String {
    let get = |k: &str| -> &str {
        facts
            .lines()
            .find_map(|l| l.strip_prefix(k).and_then(|r| r.strip_prefix('=')))
            .map(str::trim)
            .unwrap_or("?")
    };
    format!(
        "  device:{:<3} {} ({}, {}, {} compute units, {} B local memory, work-groups up to {})",
        index,
        get("name"),
        get("vendor"),
        get("type"),
        get("compute_units"),
        get("local_mem"),
        get("max_work_group"),
    )
}

/// The OpenCL devices, in the loader's order (stops at the first index the probe rejects).
pub fn opencl_devices() -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for index in 0..256 {
        match crate::model::device::query(index) {
            Ok(facts) => out.push(opencl_line(index, &facts)),
            Err(why) if index == 0 => return Err(why),
            Err(_) => break,
        }
    }
    Ok(out)
}

/// The CUDA devices the driver reports.
pub fn cuda_devices() -> Result<Vec<String>, String> {
    // SAFETY: only loads the driver library (dlopen) and reports whether it loaded.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err("no CUDA driver (libcuda) on this machine".into());
    }
    let n = cudarc::driver::CudaContext::device_count()
        .map_err(|e| format!("the CUDA driver reports no devices: {}", e))?;
    let mut out = Vec::new();
    for i in 0..n.max(0) as usize {
        let line = match cudarc::driver::CudaContext::new(i) {
            Ok(ctx) => {
                let name = ctx.name().unwrap_or_else(|_| "?".into());
                let cc = ctx
                    .compute_capability()
                    .map(|(a, b)| format!("{}.{}", a, b))
                    .unwrap_or_else(|_| "?".into());
                let mem = ctx.total_mem().map(|m| m >> 20).unwrap_or(0);
                format!(
                    "  cuda:{:<5} {} (compute capability {}, {} MiB)",
                    i, name, cc, mem
                )
            }
            Err(e) => format!("  cuda:{:<5} cannot be opened: {}", i, e),
        };
        out.push(line);
    }
    Ok(out)
}

/// The report `accshare devices` prints.
pub fn report() -> String {
    let mut s = String::from("OpenCL (run generated programs with ACCSHARE_DEVICE=N; size for one with --platform device:N):\n");
    match opencl_devices() {
        Ok(v) if !v.is_empty() => v.iter().for_each(|l| s.push_str(&format!("{}\n", l))),
        Ok(_) => s.push_str("  none\n"),
        Err(why) => s.push_str(&format!("  none: {}\n", why)),
    }
    s.push_str("CUDA:\n");
    match cuda_devices() {
        Ok(v) if !v.is_empty() => v.iter().for_each(|l| s.push_str(&format!("{}\n", l))),
        Ok(_) => s.push_str("  none\n"),
        Err(why) => s.push_str(&format!("  none: {}\n", why)),
    }
    match super::nvrtc::version() {
        Ok((a, b)) => s.push_str(&format!("  NVRTC {}.{} (compiles CUDA kernels)\n", a, b)),
        Err(why) => s.push_str(&format!("  NVRTC: {}\n", why)),
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opencl_device_in_one_line() {
        let facts = "name=pthread-haswell-AMD EPYC\nvendor=AuthenticAMD\ntype=cpu\n\
                     compute_units=2\nmax_work_group=4096\nlocal_mem=1048576\n";
        assert_eq!(
            opencl_line(0, facts),
            "  device:0   pthread-haswell-AMD EPYC (AuthenticAMD, cpu, 2 compute units, 1048576 B local memory, work-groups up to 4096)"
        );
    }
}
