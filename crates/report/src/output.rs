//! Writing an output file whole, or through what is not a file.
//!
//! A regular file (or a path not there yet) is written into a temporary
//! file beside it, persisted over it only when every write succeeded: a
//! reader never sees half a file, and a failed run leaves the old one. A
//! symlink is followed, so the file it points to is replaced and the link
//! stays a link. Anything else — a device such as `/dev/null`, a FIFO, a
//! terminal — is written through, never replaced.
//!
//! Every temporary file of the process is registered while it exists, so
//! that a process ended by a signal removes them on its way out
//! ([`exit_removing_staged`]): no `.memconform.tmp` file outlives it.
//!
//! Outputs never destroy inputs: a command names what it reads
//! ([`Inputs`]) and [`protect`]s it before it writes; from then on
//! [`Output::create`] refuses a path that is one of those files or lies
//! inside an input directory (a gem5 run: every file of it is the input),
//! whichever command, report or directory of reports asks. One check, in
//! the one place every output file passes through.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tempfile::NamedTempFile;

/// The temporary files of the process not yet persisted or removed. Held
/// while one is created, persisted or removed, so that a process exiting
/// through [`exit_removing_staged`] leaves none behind, whatever its other
/// threads were doing.
static STAGED: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn staged() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    // a thread that panicked while holding it left the list whole
    STAGED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes every temporary file of the process and exits with `code`,
/// without returning: for a process ended by a signal. The destinations
/// keep what they held (a persisted output is whole, an unpersisted one
/// was never seen).
pub fn exit_removing_staged(code: i32) -> ! {
    let list = staged();
    for p in list.iter() {
        let _ = std::fs::remove_file(p);
    }
    // still holding the list: no other thread creates or persists one now
    std::process::exit(code)
}

/// What a command reads, as outputs must not overwrite it: input files,
/// and input directories whose every file (there now or written later) is
/// part of the input (a gem5 output directory). Held by canonical path, so
/// a symlink or `..` reaches the same entry.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    files: std::collections::HashSet<PathBuf>,
    dirs: Vec<PathBuf>,
}

impl Inputs {
    /// No inputs.
    pub fn new() -> Inputs {
        Inputs::default()
    }

    /// Adds an input: a directory as a whole (every file inside it), a
    /// file as itself; `-` (standard input) and a path that cannot be
    /// resolved (reading it fails) add nothing.
    pub fn add(&mut self, p: &Path) -> &mut Inputs {
        if p.as_os_str() == "-" {
            return self;
        }
        if let Ok(c) = std::fs::canonicalize(p) {
            if c.is_dir() {
                self.dirs.push(c);
            } else {
                self.files.insert(c);
            }
        }
        self
    }

    /// Adds each of `paths` (see [`Inputs::add`]).
    pub fn with<P: AsRef<Path>>(mut self, paths: impl IntoIterator<Item = P>) -> Inputs {
        for p in paths {
            self.add(p.as_ref());
        }
        self
    }

    /// The input that writing `out` would overwrite or change: `out`
    /// itself (through symlinks), or an input directory `out` is or lies
    /// in. `None` when `out` touches no input.
    pub fn clobbered_by(&self, out: &Path) -> Option<PathBuf> {
        let dest = resolved(out);
        if self.files.contains(&dest) {
            return Some(dest);
        }
        self.dirs.iter().find(|d| dest.starts_with(d)).cloned()
    }

    /// Whether no input is held.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.dirs.is_empty()
    }
}

/// The inputs of this process that outputs must not touch ([`protect`]).
static PROTECTED: Mutex<Option<Inputs>> = Mutex::new(None);

/// From now on, [`Output::create`] (and so [`write_atomic`]) refuses to
/// write over `inputs`, for the rest of the process (added to any
/// inputs protected before).
pub fn protect(inputs: &Inputs) {
    let mut p = PROTECTED.lock().unwrap_or_else(|e| e.into_inner());
    let held = p.get_or_insert_with(Inputs::new);
    held.files.extend(inputs.files.iter().cloned());
    held.dirs.extend(inputs.dirs.iter().cloned());
}

/// The error of an output `out` refused because it would touch `input`
/// (read after "cannot write OUT: ").
pub fn refusal(input: &Path) -> io::Error {
    let what = if input.is_dir() {
        format!(
            "it lies in the input directory {}; refusing to write into an input",
            crate::shown_path(input)
        )
    } else {
        "it is one of the inputs; refusing to write over it".to_string()
    };
    io::Error::new(io::ErrorKind::AlreadyExists, what)
}

/// `Err` (see [`refusal`]) when writing `out` would touch a protected
/// input ([`protect`]): the one test every output of the process passes.
pub fn refuse_input(out: &Path) -> io::Result<()> {
    let p = PROTECTED.lock().unwrap_or_else(|e| e.into_inner());
    match p.as_ref().and_then(|i| i.clobbered_by(out)) {
        Some(input) => Err(refusal(&input)),
        None => Ok(()),
    }
}

/// Where writing `path` lands: the file a symlink points to (a dangling
/// link: its target's path), made absolute with its directory resolved
/// (a path not there yet: its parent's canonical path and its name).
fn resolved(path: &Path) -> PathBuf {
    let dest = match std::fs::canonicalize(path) {
        Ok(p) => return p,
        Err(_) => match std::fs::read_link(path) {
            Ok(t) if t.is_absolute() => t,
            Ok(t) => path.parent().unwrap_or(Path::new(".")).join(t),
            Err(_) => path.to_path_buf(),
        },
    };
    let parent = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    match (std::fs::canonicalize(parent), dest.file_name()) {
        (Ok(d), Some(name)) => d.join(name),
        _ => dest,
    }
}

/// An output being written.
pub struct Output(Inner);

enum Inner {
    /// A regular file: the temporary file and where it goes.
    Staged { tmp: NamedTempFile, dest: PathBuf },
    /// A device, FIFO or terminal, written directly.
    Through(File),
    /// Committed or discarded.
    Done,
}

impl Output {
    /// Opens `path` for writing whole (see the module); refused when it
    /// would touch a protected input ([`protect`]).
    pub fn create(path: &Path) -> io::Result<Output> {
        refuse_input(path)?;
        // the file a symlink points to (a dangling link: its target's path)
        let dest = match std::fs::canonicalize(path) {
            Ok(p) => p,
            Err(_) => match std::fs::read_link(path) {
                Ok(t) if t.is_absolute() => t,
                Ok(t) => path.parent().unwrap_or(Path::new(".")).join(t),
                Err(_) => path.to_path_buf(),
            },
        };
        match std::fs::metadata(&dest) {
            Ok(m) if !m.is_file() && !m.is_dir() => {
                return File::options()
                    .write(true)
                    .open(&dest)
                    .map(|f| Output(Inner::Through(f)));
            }
            Ok(m) if m.is_dir() => {
                return Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    format!("{} is a directory", crate::shown_path(path)),
                ));
            }
            _ => {}
        }
        let dir = match dest.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = dest
            .file_name()
            .map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
        use std::os::unix::fs::PermissionsExt;
        let mut list = staged();
        let tmp = tempfile::Builder::new()
            // as a plain create would: 0666 less the umask
            .permissions(std::fs::Permissions::from_mode(0o666))
            .prefix(&format!(".{name}."))
            .suffix(".memconform.tmp")
            .tempfile_in(dir)?;
        list.push(tmp.path().to_path_buf());
        Ok(Output(Inner::Staged { tmp, dest }))
    }

    /// Finishes the output: the staged file flushed and renamed over its
    /// destination (keeping an existing file's permissions).
    pub fn commit(mut self) -> io::Result<()> {
        match std::mem::replace(&mut self.0, Inner::Done) {
            Inner::Staged { mut tmp, dest } => {
                tmp.flush()?;
                if let Ok(m) = std::fs::metadata(&dest) {
                    let _ = tmp.as_file().set_permissions(m.permissions());
                }
                let mut list = staged();
                let path = tmp.path().to_path_buf();
                let persisted = tmp.persist(&dest);
                // persisted, or removed as the error drops the temporary file
                list.retain(|p| *p != path);
                persisted.map(drop).map_err(|e| e.error)
            }
            Inner::Through(mut f) => f.flush(),
            Inner::Done => Ok(()),
        }
    }

    /// Gives the output up: a staged file is removed, the destination
    /// left as it was.
    pub fn discard(self) {
        drop(self);
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if let Inner::Staged { tmp, .. } = std::mem::replace(&mut self.0, Inner::Done) {
            let mut list = staged();
            let path = tmp.path().to_path_buf();
            drop(tmp);
            list.retain(|p| *p != path);
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.0 {
            Inner::Staged { tmp, .. } => tmp.write(buf),
            Inner::Through(f) => f.write(buf),
            Inner::Done => Err(io::Error::other("the output is finished")),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.0 {
            Inner::Staged { tmp, .. } => tmp.flush(),
            Inner::Through(f) => f.flush(),
            Inner::Done => Ok(()),
        }
    }
}

/// Writes `bytes` to `path` whole (see the module).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut out = Output::create(path)?;
    out.write_all(bytes)?;
    out.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_replaced_whole_and_a_symlink_stays_a_link() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("r.csv");
        write_atomic(&file, b"one").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"one");
        let link = d.path().join("link.csv");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        write_atomic(&link, b"two").unwrap();
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&file).unwrap(), b"two");
        // nothing left beside them
        let names: Vec<_> = std::fs::read_dir(d.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 2);
    }

    #[test]
    fn a_device_is_written_through_not_replaced() {
        write_atomic(Path::new("/dev/null"), b"x").unwrap();
        let m = std::fs::metadata("/dev/null").unwrap();
        use std::os::unix::fs::FileTypeExt;
        assert!(m.file_type().is_char_device());
    }

    #[test]
    fn a_discarded_output_leaves_the_old_file() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("r.csv");
        std::fs::write(&file, b"old").unwrap();
        let mut o = Output::create(&file).unwrap();
        o.write_all(b"new, half").unwrap();
        o.discard();
        assert_eq!(std::fs::read(&file).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }

    #[test]
    fn an_input_is_reached_by_any_path_and_a_run_directory_as_a_whole() {
        let d = tempfile::tempdir().unwrap();
        let input = d.path().join("a.csv");
        std::fs::write(&input, b"x").unwrap();
        let run = d.path().join("run");
        std::fs::create_dir_all(run.join("sub")).unwrap();
        std::fs::write(run.join("config.ini"), b"[root]").unwrap();
        let inputs = Inputs::new().with([&input, &run]);
        // the file itself, through `..`, through a symlink, a dangling
        // link's target
        assert!(inputs.clobbered_by(&input).is_some());
        assert!(inputs
            .clobbered_by(&run.join("sub").join("..").join("..").join("a.csv"))
            .is_some());
        let link = d.path().join("link.csv");
        std::os::unix::fs::symlink(&input, &link).unwrap();
        assert!(inputs.clobbered_by(&link).is_some());
        // inside the run directory: an existing file, a new one, the
        // directory itself, a new subdirectory's file
        for p in [
            run.join("config.ini"),
            run.join("new.csv"),
            run.clone(),
            run.join("sub").join("x.hist"),
        ] {
            assert_eq!(
                inputs.clobbered_by(&p).as_deref(),
                Some(std::fs::canonicalize(&run).unwrap().as_path()),
                "{}",
                p.display()
            );
        }
        // beside them: free
        for p in [d.path().join("b.csv"), d.path().join("run2").join("x")] {
            assert_eq!(inputs.clobbered_by(&p), None, "{}", p.display());
        }
        // a dangling symlink into the run directory
        let dangling = d.path().join("dangling");
        std::os::unix::fs::symlink(run.join("gone.csv"), &dangling).unwrap();
        assert!(inputs.clobbered_by(&dangling).is_some());
    }

    #[test]
    fn a_protected_input_refuses_every_output_and_stays_whole() {
        let d = tempfile::tempdir().unwrap();
        let input = d.path().join("in.hist");
        std::fs::write(&input, b"t0: W(x,1)\n").unwrap();
        let run = d.path().join("run");
        std::fs::create_dir_all(&run).unwrap();
        protect(&Inputs::new().with([&input, &run]));
        let e = write_atomic(&input, b"over").unwrap_err();
        assert!(e.to_string().contains("one of the inputs"), "{e}");
        assert!(Output::create(&run.join("results.csv")).is_err());
        assert_eq!(std::fs::read(&input).unwrap(), b"t0: W(x,1)\n");
        assert!(!run.join("results.csv").exists());
        // beside them: written
        write_atomic(&d.path().join("out.csv"), b"ok").unwrap();
    }
}
