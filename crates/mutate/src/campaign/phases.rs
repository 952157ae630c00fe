//! Where a build's time went (docs/design/campaigns.md §8, build phases):
//! SCons's step lines as they come.

use super::*;

/// Where a gem5 build's wall time went, by the first line of each kind of
/// step SCons prints (`[   SLICC]`, `[     CXX]`, `[    LINK]`), timed as
/// the lines came: SCons reading its scripts and scanning dependencies up
/// to its first step; regenerating (SLICC and the other generated files)
/// up to the first compile; compiling up to the link; linking to the end.
/// A phase with no line of its own takes no time (with `-j`, steps of two
/// phases can overlap: the first line of each decides).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct BuildPhases {
    pub scan_s: f64,
    pub regenerate_s: f64,
    pub compile_s: f64,
    pub link_s: f64,
}

impl BuildPhases {
    /// The phases of a command that ran `total` seconds, from when (seconds
    /// after its start) its first step line, first compile line and first
    /// link line came; `None` when it printed no step line at all.
    pub fn of(
        total: f64,
        first_step: Option<f64>,
        compile: Option<f64>,
        link: Option<f64>,
    ) -> Option<BuildPhases> {
        let step = first_step?;
        let end = total.max(step);
        let link = link.unwrap_or(end).clamp(step, end);
        let compile = compile.unwrap_or(link).clamp(step, link);
        Some(BuildPhases {
            scan_s: step,
            regenerate_s: compile - step,
            compile_s: link - compile,
            link_s: end - link,
        })
    }
}

/// When a command's output showed SCons's first step, first compile and
/// first link (seconds after its start).
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Marks {
    pub(super) step: Option<f64>,
    pub(super) compile: Option<f64>,
    pub(super) link: Option<f64>,
}

impl Marks {
    /// Notes `line`, seen `at` seconds after the start.
    pub(super) fn see(&mut self, line: &[u8], at: f64) {
        // SCons's step lines: ` [     CXX] a.cc -> .o`, tag right-aligned
        let Some(tag) = line
            .trim_ascii_start()
            .strip_prefix(b"[")
            .and_then(|l| l.iter().position(|&b| b == b']').map(|e| &l[..e]))
        else {
            return;
        };
        let tag = tag.trim_ascii();
        if tag.is_empty()
            || tag.len() > 12
            || !tag
                .iter()
                .all(|b| b.is_ascii_uppercase() || b" ".contains(b))
                && tag != b"SO Param"
        {
            return;
        }
        self.step.get_or_insert(at);
        match tag {
            b"CXX" | b"CC" | b"SHCXX" | b"SHCC" | b"AS" => {
                self.compile.get_or_insert(at);
            }
            b"LINK" | b"SHLINK" => {
                self.link.get_or_insert(at);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod phase_tests {
    use super::{BuildPhases, Marks};

    #[test]
    fn scons_step_lines_mark_the_phases_of_a_build() {
        let mut m = Marks::default();
        m.see(b"scons: Reading SConscript files ...\n", 0.5);
        m.see(b"Checking for C header file Python.h... yes\n", 1.0);
        assert!(m.step.is_none());
        m.see(
            b" [   SLICC] src/mem/ruby/protocol/MI_example.slicc -> NULL/mem\n",
            20.0,
        );
        m.see(
            b" [SO Param] m5.objects.Foo, Foo -> NULL/params/Foo.hh\n",
            21.0,
        );
        m.see(
            b" [     CXX] NULL/mem/ruby/protocol/L1Cache_Controller.cc -> .o\n",
            30.0,
        );
        m.see(b" [     CXX] NULL/base/x.cc -> .o\n", 40.0);
        m.see(b" [    LINK]  -> NULL/gem5.opt\n", 100.0);
        m.see(b"[link done] not a step\n", 110.0);
        let p = BuildPhases::of(160.0, m.step, m.compile, m.link).unwrap();
        assert_eq!(
            p,
            BuildPhases {
                scan_s: 20.0,
                regenerate_s: 10.0,
                compile_s: 70.0,
                link_s: 60.0
            }
        );
        // a build with nothing to compile: regenerate, then link
        let p = BuildPhases::of(50.0, Some(10.0), None, Some(30.0)).unwrap();
        assert_eq!((p.regenerate_s, p.compile_s, p.link_s), (20.0, 0.0, 20.0));
        // no step line at all (not SCons): no phases
        assert!(BuildPhases::of(5.0, None, None, None).is_none());
    }
}
