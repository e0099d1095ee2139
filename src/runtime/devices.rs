//! `accshare devices`: what this machine can run generated code on, each device under the name
//! every command uses — every OpenCL device of every platform (`opencl:N`, queried in-process
//! through `opencl3`, numbered as `--platform opencl:N` and `ACCSHARE_DEVICE=N` number them),
//! every CUDA device the driver reports (`cuda:N`, through cudarc, only after checking that the
//! driver library loads: without a driver cudarc would panic), the NVRTC that compiles CUDA
//! kernels here, and the simulator (`sim`).

use crate::model::device::{self, DeviceError, DeviceFacts, DeviceName};

/// One OpenCL device: `opencl:N  name (platform; vendor, type, compute units, local memory,
/// work-group)`.
fn opencl_line(index: usize, f: &DeviceFacts) -> String {
    format!(
        "  {:<10} {} ({}; {}, {}, {} compute units, {} B local memory {}, work-groups up to {}{})",
        DeviceName::OpenCl(index).to_string(),
        f.name,
        f.platform,
        f.vendor,
        f.kind,
        f.compute_units,
        f.local_mem,
        f.local_mem_kind,
        f.max_work_group,
        if f.host_unified_memory {
            ", memory shared with the host"
        } else {
            ""
        },
    )
}

/// The lines of the OpenCL section, from the devices' facts (or why there are none).
fn opencl_section(devices: Result<Vec<(usize, DeviceFacts)>, DeviceError>) -> String {
    let mut s = String::from(
        "OpenCL (size for a device with --platform opencl:N; run generated programs on it with \
         ACCSHARE_DEVICE=N):\n",
    );
    match devices {
        Ok(v) if !v.is_empty() => v
            .iter()
            .for_each(|(i, f)| s.push_str(&format!("{}\n", opencl_line(*i, f)))),
        Ok(_) => s.push_str("  none: the OpenCL platforms have no device\n"),
        Err(why) => s.push_str(&format!("  none: {}\n", why)),
    }
    s
}

/// Every OpenCL device of every platform with its facts, in the global order.
pub fn opencl_devices() -> Result<Vec<(usize, DeviceFacts)>, DeviceError> {
    Ok(device::opencl_devices()?
        .iter()
        .map(|d| (d.index, DeviceFacts::of(d)))
        .collect())
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
        let name = DeviceName::Cuda(i).to_string();
        let line = match cudarc::driver::CudaContext::new(i) {
            Ok(ctx) => {
                let model = ctx.name().unwrap_or_else(|_| "?".into());
                let cc = ctx
                    .compute_capability()
                    .map(|(a, b)| format!("{}.{}", a, b))
                    .unwrap_or_else(|_| "?".into());
                let mem = ctx.total_mem().map(|m| m >> 20).unwrap_or(0);
                format!(
                    "  {:<10} {} (compute capability {}, {} MiB)",
                    name, model, cc, mem
                )
            }
            Err(e) => format!("  {:<10} cannot be opened: {}", name, e),
        };
        out.push(line);
    }
    Ok(out)
}

/// The report `accshare devices` prints.
pub fn report() -> String {
    let mut s = opencl_section(opencl_devices());
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
    s.push_str(&format!(
        "Simulator:\n  {:<10} accshare's SIMT simulator (run --device sim; always available)\n",
        DeviceName::Sim.to_string()
    ));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::device::DeviceKind;

    fn facts(name: &str, platform: &str, kind: DeviceKind) -> DeviceFacts {
        DeviceFacts {
            name: name.into(),
            platform: platform.into(),
            kind,
            ..device::sample_facts()
        }
    }

    #[test]
    fn an_opencl_device_in_one_line() {
        let f = facts(
            "pthread-haswell-AMD EPYC",
            "Portable Computing Language",
            DeviceKind::Cpu,
        );
        assert_eq!(
            opencl_line(0, &f),
            "  opencl:0   pthread-haswell-AMD EPYC (Portable Computing Language; AuthenticAMD, cpu, \
             2 compute units, 1048576 B local memory in global memory, work-groups up to 4096, \
             memory shared with the host)"
        );
    }

    /// Devices of several platforms are listed together, each under its global number.
    #[test]
    fn devices_of_every_platform_are_listed() {
        let numbered =
            device::number_globally(vec![("P0", vec!["cpu0", "cpu1"]), ("P1", vec!["gpu0"])]);
        let listed = numbered
            .into_iter()
            .map(|(i, p, d)| {
                let kind = if d.starts_with("gpu") {
                    DeviceKind::Gpu
                } else {
                    DeviceKind::Cpu
                };
                (i, facts(d, p, kind))
            })
            .collect();
        let text = opencl_section(Ok(listed));
        let names: Vec<&str> = text
            .lines()
            .skip(1)
            .filter_map(|l| l.split_whitespace().next())
            .collect();
        assert_eq!(names, ["opencl:0", "opencl:1", "opencl:2"], "{text}");
        assert!(
            text.contains("opencl:2   gpu0 (P1; AuthenticAMD, gpu,"),
            "{text}"
        );
    }

    #[test]
    fn no_runtime_is_a_line_not_an_error() {
        let text = opencl_section(Err(DeviceError::NoLoader));
        assert!(text.starts_with("OpenCL ("), "{text}");
        assert!(text.ends_with("\n  none: no OpenCL runtime: the ICD loader (libOpenCL.so.1) cannot be loaded (install one, e.g. PoCL: pocl-opencl-icd)\n"), "{text}");
        assert!(
            opencl_section(Ok(Vec::new())).contains("  none: the OpenCL platforms have no device")
        );
    }
}
