//! The target a compiled unit needs: each feature's lowest compute capability and
//! whether it is architecture-specific (`compute_90a`), and the libnvvm architecture
//! chosen from a unit's needs and the device's capability. Features list their needs
//! beside their rules (`proc::mbarrier::target_need`); the JIT asks [`choose_arch`].

/// What a kernel's use of a feature asks of the target: the lowest compute capability
/// (`10 * major + minor`) and whether the PTX must be compiled for that architecture
/// exactly (`compute_90a`: instructions that exist on sm_90 only, not on later GPUs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TargetNeed {
    pub feature: &'static str,
    pub min_arch: u32,
    pub arch_specific: bool,
}

/// `need` once when an expression of `module` calls an intrinsic that `uses` picks, else
/// no need: the rule of the features with one need each (wgmma, TMA).
pub fn need_if_used(
    module: &crate::ir::Module,
    need: TargetNeed,
    uses: impl Fn(crate::ir::Intrinsic) -> bool,
) -> Vec<TargetNeed> {
    let used = module.functions.iter().any(|(_, f)| {
        f.exprs.iter().any(|(_, e)| match e.kind {
            crate::ir::ExprKind::Intrinsic { intrinsic, .. } => uses(intrinsic),
            _ => false,
        })
    });
    if used {
        vec![need]
    } else {
        Vec::new()
    }
}

/// The libnvvm architecture for a kernel with `needs` on a device of compute
/// capability `(major, minor)`: `compute_90a` when a need is sm_90a-specific and the
/// device is sm_90, else the device's own; an error naming the feature and the
/// device's capability where the device lacks it.
pub fn choose_arch(needs: &[TargetNeed], (major, minor): (u32, u32)) -> Result<String, String> {
    let device = 10 * major + minor;
    for need in needs {
        if device < need.min_arch || (need.arch_specific && device != need.min_arch) {
            let wanted = if need.arch_specific {
                format!(
                    "exactly compute capability {}.{} (sm_{}a)",
                    need.min_arch / 10,
                    need.min_arch % 10,
                    need.min_arch
                )
            } else {
                format!(
                    "compute capability {}.{} or later",
                    need.min_arch / 10,
                    need.min_arch % 10
                )
            };
            return Err(format!(
                "{} needs {wanted}; this device is compute capability {major}.{minor}",
                need.feature
            ));
        }
    }
    let specific = needs.iter().any(|n| n.arch_specific);
    Ok(format!(
        "compute_{major}{minor}{}",
        if specific { "a" } else { "" }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_choice_names_feature_and_device() {
        let plain = crate::proc::mbarrier::target_need(crate::ir::MbarrierOp::Arrive);
        assert_eq!(choose_arch(&[plain], (9, 0)).unwrap(), "compute_90");
        assert_eq!(choose_arch(&[plain], (10, 0)).unwrap(), "compute_100");
        let err = choose_arch(&[plain], (8, 6)).unwrap_err();
        assert!(
            err.contains("mbarrier.arrive") && err.contains("8.6") && err.contains("9.0"),
            "{err}"
        );
        let specific = TargetNeed {
            feature: "`wgmma.mma_async`",
            min_arch: 90,
            arch_specific: true,
        };
        assert_eq!(
            choose_arch(&[plain, specific], (9, 0)).unwrap(),
            "compute_90a"
        );
        let err = choose_arch(&[specific], (10, 0)).unwrap_err();
        assert!(
            err.contains("wgmma") && err.contains("sm_90a") && err.contains("10.0"),
            "{err}"
        );
        assert_eq!(choose_arch(&[], (8, 0)).unwrap(), "compute_80");
    }
}
