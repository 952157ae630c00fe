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
    /// Opens `path` for writing whole (see the module).
    pub fn create(path: &Path) -> io::Result<Output> {
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
}
