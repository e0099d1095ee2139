//! Which elements of the device copies hold values nothing defined, along a replay.
//!
//! OpenACC's `copyout` and `create` allocate an array on the device without copying the
//! host's values in: until a kernel writes an element, or `update device` copies it, its value
//! is undefined, and a kernel that reads it computes garbage on a GPU (on a device sharing host
//! memory the bug hides). The replay ([`super::trace`]) follows the program's data lifetimes
//! in order (data constructs, `enter`/`exit data`, `update device`, each compute construct's
//! own clauses) and hands each launch the elements of its arrays still undefined; the
//! simulator's checker reports a kernel's read of one ([`super::FindingKind::UndefinedGlobal`])
//! and marks what the kernel wrote as defined.
//!
//! Arrays are followed as the present table holds them: the first `create`/`copyout` of an
//! array not present makes it undefined, a nested one of a present array changes nothing, the
//! last release forgets it. What the host plan does not show is not followed: the runtime
//! API (`acc_copyin`, `acc_memcpy_to_device`, …) and data lifetimes across functions the
//! trace does not see; an array they define is never reported (a miss, never a false alarm,
//! unless the program defines a `create`d array only through the API).

use std::collections::BTreeMap;

use crate::kernel::{Buffer, DataOpKind, HostRegion};

use super::BufData;

/// The device copies the replay follows: reference counts and undefined elements by array.
#[derive(Debug, Default)]
pub struct DeviceCopies {
    refs: BTreeMap<String, u32>,
    /// Per array, its undefined elements (an empty vector: all of them, length not yet known).
    undefined: BTreeMap<String, Vec<bool>>,
}

/// Whether a buffer of a construct's data clause allocates a device copy the replay follows
/// (not `present`: it must exist; not a scalar's one-element copy).
fn followed(b: &Buffer) -> bool {
    !(b.present || b.scalar)
}

impl DeviceCopies {
    /// An allocation of `array` (`defined`: its values are copied in or zeroed): only the
    /// first, while it is not present, makes the copy undefined.
    fn create(&mut self, array: &str, defined: bool) {
        let r = self.refs.entry(array.to_string()).or_insert(0);
        if *r == 0 && !defined {
            self.undefined.insert(array.to_string(), Vec::new());
        }
        *r += 1;
    }

    /// A release of `array` (`finalize`: every reference).
    fn release(&mut self, array: &str, finalize: bool) {
        if let Some(r) = self.refs.get_mut(array) {
            *r = if finalize { 0 } else { r.saturating_sub(1) };
            if *r == 0 {
                self.refs.remove(array);
                self.undefined.remove(array);
            }
        }
    }

    /// A data construct's entry (`enter`) or exit.
    pub fn data_construct(&mut self, region: &HostRegion, enter: bool) {
        for b in region.buffers.iter().filter(|b| followed(b)) {
            if enter {
                self.create(&b.array, b.copy_in || b.zero);
            } else {
                self.release(&b.array, false);
            }
        }
    }

    /// An executable data directive's actions (`enter data`, `exit data`, `update device`).
    pub fn data_ops(&mut self, region: &HostRegion) {
        for op in region.data_ops.iter().filter(|op| !op.scalar) {
            match op.kind {
                DataOpKind::Enter { copy_in, zero } => self.create(&op.array, copy_in || zero),
                DataOpKind::Exit { finalize, .. } => self.release(&op.array, finalize),
                DataOpKind::Update { to_host: false, .. } => {
                    self.undefined.remove(&op.array);
                }
                DataOpKind::Update { to_host: true, .. } => {}
            }
        }
    }

    /// A compute construct's instance begins: its own data clauses allocate (present arrays
    /// are left as they are). Returns, for the instance's `arrays`, the elements undefined now.
    pub fn enter_compute(
        &mut self,
        region: &HostRegion,
        arrays: &BTreeMap<String, BufData>,
    ) -> BTreeMap<String, Vec<bool>> {
        for b in region.buffers.iter().filter(|b| followed(b)) {
            self.create(&b.array, b.copy_in || b.zero);
        }
        (arrays.iter())
            .filter_map(|(a, data)| {
                let u = self.undefined.get(a)?;
                Some((
                    a.clone(),
                    if u.is_empty() {
                        vec![true; data.len()]
                    } else {
                        u.clone()
                    },
                ))
            })
            .collect()
    }

    /// The instance ended: `after` holds what its launches left undefined (an array missing
    /// from it is defined: a launch that copies it whole into tiles takes it as defined), and
    /// the construct's own clauses release their arrays.
    pub fn leave_compute(&mut self, region: &HostRegion, after: BTreeMap<String, Vec<bool>>) {
        let followed_now: Vec<String> = self.undefined.keys().cloned().collect();
        for a in followed_now {
            match after.get(&a) {
                Some(u) if u.iter().any(|&x| x) => {
                    self.undefined.insert(a, u.clone());
                }
                Some(_) => {
                    self.undefined.remove(&a);
                }
                // One of the instance's arrays that a launch took as defined.
                None if region_uses(region, &a) => {
                    self.undefined.remove(&a);
                }
                // Not one of the instance's arrays: as it was.
                None => {}
            }
        }
        for b in region.buffers.iter().filter(|b| followed(b)) {
            self.release(&b.array, false);
        }
    }
}

/// Whether the compute construct's launches pass `array`.
fn region_uses(region: &HostRegion, array: &str) -> bool {
    super::trace::region_arrays(region)
        .iter()
        .any(|a| a == array)
}
