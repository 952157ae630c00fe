//! Finding the inputs under the paths a user gives: files as given, gem5
//! output directories as runs, other directories searched for history files
//! and runs.
//!
//! The walk is linear in the entries it lists: an entry's type comes from
//! its directory listing, its identity (device and inode) from a status
//! look-up relative to the open directory, and a directory's being a run
//! from its own listing. Nothing resolves a whole path again per entry (a
//! canonical path per directory made a chain of depth d cost d³).

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::load::InputError;

/// What [`discover`] found.
#[derive(Debug, Default)]
pub struct Found {
    /// The inputs, in order: each path as given, a directory followed by
    /// what it holds (sorted by name, depth first), each input once.
    pub inputs: Vec<PathBuf>,
    /// Paths that could not be read or listed.
    pub errors: Vec<InputError>,
    /// What the walk passed over on purpose, for the user: a symlink
    /// loop, reported once where it closes.
    pub notes: Vec<String>,
    /// Filesystem calls made (listings and status look-ups): linear in
    /// the entries listed, whatever the depth.
    pub work: usize,
}

/// An entry's identity: device and inode.
type Id = (u64, u64);

fn id(m: &std::fs::Metadata) -> Id {
    (m.dev(), m.ino())
}

/// The inputs named by `paths`: files as given; gem5 output directories
/// (with `config.ini`/`config.json`) as runs; other directories searched
/// recursively for `*.hist`, `*.axe` and runs (sorted, so the order is stable).
/// The subdirectories of a run are searched too: a run nested inside
/// another (an output directory made inside one) is a run of its own, after
/// its parent, and a `.hist` or axe file inside a run is an input of its
/// own (gem5 writes none; a user or a tool put it there to be checked).
/// Each input is taken once, by its device and inode (a path given twice,
/// reached again through a symlink or a hard link, adds nothing); a
/// symlink back to a directory being walked (a loop) is noted once and not
/// followed.
pub fn discover(paths: &[PathBuf]) -> Found {
    let mut w = Walk::default();
    for p in paths {
        w.found.work += 1;
        match std::fs::metadata(p) {
            Ok(m) if m.is_dir() => {
                if w.seen.insert(id(&m)) {
                    w.walk(p.clone(), id(&m));
                }
            }
            Ok(m) => {
                if w.seen.insert(id(&m)) {
                    w.found.inputs.push(p.clone());
                }
            }
            Err(e) => w.found.errors.push(InputError {
                file: p.clone(),
                pos: None,
                msg: format!("cannot read: {e}"),
            }),
        }
    }
    w.found
}

#[derive(Default)]
struct Walk {
    found: Found,
    /// Every directory and input file taken.
    seen: HashSet<Id>,
    /// The directories on the path being walked (a symlink to one of them
    /// closes a loop), by identity, with their paths.
    open: HashMap<Id, PathBuf>,
}

/// An entry of a listing: its name, whether it is a directory (through a
/// symlink), a history file, and its identity.
struct Entry {
    name: OsString,
    dir: bool,
    id: Id,
    /// Reached through a symlink.
    link: bool,
}

impl Walk {
    /// Walks directory `root` (identity `root_id`), depth first in name
    /// order, without recursion (a deep chain uses no stack).
    fn walk(&mut self, root: PathBuf, root_id: Id) {
        // each frame: a directory's path, identity and entries not yet seen
        // (reversed: popped in name order)
        let mut stack: Vec<(PathBuf, Id, Vec<Entry>)> = Vec::new();
        let entries = self.enter(&root, root_id);
        stack.push((root, root_id, entries));
        while let Some((dir, dir_id, entries)) = stack.last_mut() {
            let Some(e) = entries.pop() else {
                let id = *dir_id;
                self.open.remove(&id);
                stack.pop();
                continue;
            };
            let path = dir.join(&e.name);
            if e.dir {
                if self.seen.insert(e.id) {
                    let entries = self.enter(&path, e.id);
                    stack.push((path, e.id, entries));
                } else if e.link {
                    if let Some(back) = self.open.get(&e.id) {
                        self.found.notes.push(format!(
                            "{}: a symlink loop back to {}: not followed",
                            memconform_parsers::text::shown_path(&path),
                            memconform_parsers::text::shown_path(back)
                        ));
                    }
                }
            } else if self.seen.insert(e.id) {
                self.found.inputs.push(path);
            }
        }
    }

    /// Lists `dir`: takes it as a run when it is one, marks it open, and
    /// returns its subdirectories and history files, reversed.
    fn enter(&mut self, dir: &Path, dir_id: Id) -> Vec<Entry> {
        self.open.insert(dir_id, dir.to_path_buf());
        self.found.work += 1;
        let listing = match std::fs::read_dir(dir) {
            Ok(l) => l,
            Err(e) => {
                self.found.errors.push(InputError {
                    file: dir.to_path_buf(),
                    pos: None,
                    msg: format!("cannot list directory: {e}"),
                });
                return Vec::new();
            }
        };
        let mut run = false;
        let mut entries = Vec::new();
        for e in listing.flatten() {
            self.found.work += 1;
            let name = e.file_name();
            let Ok(t) = e.file_type() else { continue };
            let history = Path::new(&name)
                .extension()
                .is_some_and(|x| x == "hist" || x == "axe");
            let config = name == "config.ini" || name == "config.json";
            if !(t.is_dir() || t.is_symlink() || history || config) {
                continue;
            }
            // a symlink is followed (a status look-up of its path); an
            // entry itself is looked up relative to the open directory
            self.found.work += 1;
            let m = if t.is_symlink() {
                std::fs::metadata(e.path())
            } else {
                e.metadata()
            };
            let Ok(m) = m else { continue };
            if config && m.is_file() {
                run = true;
            }
            if m.is_dir() || (history && m.is_file()) {
                entries.push(Entry {
                    name,
                    dir: m.is_dir(),
                    id: id(&m),
                    link: t.is_symlink(),
                });
            }
        }
        if run {
            self.found.inputs.push(dir.to_path_buf());
        }
        entries.sort_by(|a, b| b.name.cmp(&a.name));
        entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    #[test]
    fn runs_files_and_a_hist_inside_a_run_in_order() {
        let d = dir();
        let r = d.path();
        std::fs::create_dir_all(r.join("b/run/inner")).unwrap();
        std::fs::write(r.join("b/run/config.ini"), "[root]\n").unwrap();
        std::fs::write(r.join("b/run/inner/config.json"), "{}").unwrap();
        std::fs::write(r.join("b/run/kept.hist"), "t0: W(x,1)\n").unwrap();
        std::fs::write(r.join("b/run/trace.out"), "").unwrap();
        std::fs::write(r.join("a.hist"), "t0: W(x,1)\n").unwrap();
        std::fs::write(r.join("c.axe"), "").unwrap();
        std::fs::write(r.join("notes.txt"), "").unwrap();
        let f = discover(&[r.to_path_buf()]);
        let got: Vec<_> = f
            .inputs
            .iter()
            .map(|p| p.strip_prefix(r).unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            got,
            ["a.hist", "b/run", "b/run/inner", "b/run/kept.hist", "c.axe"]
        );
        assert!(f.errors.is_empty() && f.notes.is_empty());
    }

    #[test]
    fn a_path_again_through_a_link_adds_nothing_and_a_loop_is_noted_once() {
        let d = dir();
        let r = d.path();
        std::fs::create_dir_all(r.join("a/b")).unwrap();
        std::fs::write(r.join("a/b/h.hist"), "t0: W(x,1)\n").unwrap();
        // a loop back to the root, one to its own directory, a second
        // way to a directory and to a file
        std::os::unix::fs::symlink(r, r.join("a/b/up")).unwrap();
        std::os::unix::fs::symlink(".", r.join("a/self")).unwrap();
        std::os::unix::fs::symlink(r.join("a/b"), r.join("again")).unwrap();
        std::os::unix::fs::symlink(r.join("a/b/h.hist"), r.join("z.hist")).unwrap();
        std::fs::hard_link(r.join("a/b/h.hist"), r.join("hard.hist")).unwrap();
        let f = discover(&[r.to_path_buf(), r.join("a")]);
        assert_eq!(f.inputs, [r.join("a/b/h.hist")], "{:?}", f.inputs);
        assert_eq!(f.notes.len(), 2, "{:?}", f.notes);
        assert!(
            f.notes[0].contains("a/b/up: a symlink loop back to"),
            "{:?}",
            f.notes
        );
        assert!(
            f.notes[1].contains("a/self: a symlink loop"),
            "{:?}",
            f.notes
        );
    }

    #[test]
    fn a_deep_chain_is_walked_in_work_linear_in_its_depth() {
        let d = tempfile::Builder::new()
            .prefix("c")
            .tempdir_in("/tmp")
            .unwrap();
        let mut deepest = d.path().to_path_buf();
        // 2,000 levels of one-letter names (the paths stay under PATH_MAX)
        let depth = 2000;
        let mut rel = PathBuf::new();
        for _ in 0..depth {
            rel.push("d");
        }
        deepest.push(&rel);
        std::fs::create_dir_all(&deepest).unwrap();
        std::fs::write(deepest.join("h.hist"), "t0: W(x,1)\n").unwrap();
        let t = std::time::Instant::now();
        let f = discover(&[d.path().to_path_buf()]);
        let secs = t.elapsed().as_secs_f64();
        assert!(f.errors.is_empty(), "{:?}", f.errors.first());
        assert_eq!(f.inputs, [deepest.join("h.hist")]);
        // per level: the listing, its one entry and that entry's look-up
        assert!(f.work <= 3 * (depth + 1) + 2, "{} calls", f.work);
        assert!(secs < 5.0, "{secs:.2} s");
    }

    #[test]
    fn an_unreadable_path_is_an_error_not_a_silence() {
        let d = dir();
        let f = discover(&[d.path().join("missing")]);
        assert!(f.inputs.is_empty());
        assert_eq!(f.errors.len(), 1);
    }
}
