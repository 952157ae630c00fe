//! Writing an output file whole, or through what is not a file.
//!
//! A regular file (or a path not there yet) is written into a temporary
//! file beside it, persisted over it only when every write succeeded: a
//! reader never sees half a file, and a failed run leaves the old one. A
//! symlink is followed, so the file it points to is replaced and the link
//! stays a link. Anything else — a device such as `/dev/null`, a FIFO, a
//! terminal — is written through, never replaced.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// An output being written.
pub enum Output {
    /// A regular file: the temporary file and where it goes.
    Staged { tmp: NamedTempFile, dest: PathBuf },
    /// A device, FIFO or terminal, written directly.
    Through(File),
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
                return File::options().write(true).open(&dest).map(Output::Through);
            }
            Ok(m) if m.is_dir() => {
                return Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    format!("{} is a directory", path.display()),
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
        let tmp = tempfile::Builder::new()
            // as a plain create would: 0666 less the umask
            .permissions(std::fs::Permissions::from_mode(0o666))
            .prefix(&format!(".{name}."))
            .suffix(".memconform.tmp")
            .tempfile_in(dir)?;
        Ok(Output::Staged { tmp, dest })
    }

    /// Finishes the output: the staged file flushed and renamed over its
    /// destination (keeping an existing file's permissions).
    pub fn commit(self) -> io::Result<()> {
        match self {
            Output::Staged { mut tmp, dest } => {
                tmp.flush()?;
                if let Ok(m) = std::fs::metadata(&dest) {
                    let _ = tmp.as_file().set_permissions(m.permissions());
                }
                tmp.persist(&dest).map(drop).map_err(|e| e.error)
            }
            Output::Through(mut f) => f.flush(),
        }
    }

    /// Gives the output up: a staged file is removed, the destination
    /// left as it was.
    pub fn discard(self) {
        drop(self);
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Staged { tmp, .. } => tmp.write(buf),
            Output::Through(f) => f.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Staged { tmp, .. } => tmp.flush(),
            Output::Through(f) => f.flush(),
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
