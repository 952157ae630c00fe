//! Input files read whole into memory — regular files only.
//!
//! Not memory-mapped: a mapped file that shrinks while it is read (gem5
//! still writing, a copy in progress) kills the process with SIGBUS and the
//! whole batch with it. Not a FIFO, device or directory either: opening a
//! FIFO blocks until a writer comes. Both are refused before `open`.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The bytes of a regular file.
pub struct FileBytes(Vec<u8>);

impl FileBytes {
    /// Reads `path`, a regular file (checked before it is opened).
    pub fn open(path: &Path) -> io::Result<FileBytes> {
        regular(path)?;
        let mut file = File::open(path)?;
        // one allocation of the file's size: growing by doubling leaves
        // every smaller buffer behind, and mimalloc keeps freed huge blocks
        // (a 108 MB client output peaked at 604 MB that way, 116 MB this way)
        let size = file.metadata().map_or(0, |m| m.len());
        let mut buf = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
        file.read_to_end(&mut buf)?;
        Ok(FileBytes(buf))
    }

    /// [`FileBytes::open`], and the data decompressed when it is gzip (by
    /// its magic bytes, whatever the name): a bundled run keeps its larger
    /// files (`stats.txt.gz`) compressed. A cut or corrupt stream is an
    /// `InvalidData` error.
    pub fn open_gunzipped(path: &Path) -> io::Result<FileBytes> {
        let raw = FileBytes::open(path)?;
        if !raw.0.starts_with(&[0x1f, 0x8b]) {
            return Ok(raw);
        }
        let mut out = Vec::new();
        flate2::bufread::MultiGzDecoder::new(&raw.0[..])
            .read_to_end(&mut out)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("gzip: {e}")))?;
        Ok(FileBytes(out))
    }
}

/// `Ok` when `path` is a regular file (following symlinks); else an
/// `InvalidInput` error naming what it is. Never opens the file.
pub fn regular(path: &Path) -> io::Result<()> {
    let meta = std::fs::metadata(path)?;
    if meta.is_file() {
        return Ok(());
    }
    let what = if meta.is_dir() {
        "a directory"
    } else {
        special_kind(&meta)
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("not a regular file but {what}"),
    ))
}

#[cfg(unix)]
fn special_kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_block_device() || t.is_char_device() {
        "a device"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::Metadata) -> &'static str {
    "a special file"
}

impl std::ops::Deref for FileBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_files_are_refused_before_open() {
        let dir = std::env::temp_dir().join(format!("memconform-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = FileBytes::open(&dir).err().expect("a directory is refused");
        assert!(e.to_string().contains("a directory"), "{e}");
        #[cfg(unix)]
        {
            let fifo = dir.join("fifo");
            let _ = std::fs::remove_file(&fifo);
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                // would block forever if it were opened
                let e = FileBytes::open(&fifo).err().expect("a FIFO is refused");
                assert!(e.to_string().contains("FIFO"), "{e}");
            }
        }
        let file = dir.join("f.txt");
        std::fs::write(&file, "x\n").unwrap();
        assert_eq!(&*FileBytes::open(&file).unwrap(), b"x\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn gzip_is_read_through_and_a_cut_stream_refused() {
        use std::io::Write as _;
        let dir = std::env::temp_dir().join(format!("memconform-gz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(b"simSeconds 0.1\n").unwrap();
        let gz = gz.finish().unwrap();
        let (whole, cut, plain) = (dir.join("a.gz"), dir.join("b.gz"), dir.join("c"));
        std::fs::write(&whole, &gz).unwrap();
        std::fs::write(&cut, &gz[..gz.len() - 6]).unwrap();
        std::fs::write(&plain, b"plain").unwrap();
        assert_eq!(
            &*FileBytes::open_gunzipped(&whole).unwrap(),
            b"simSeconds 0.1\n"
        );
        let e = FileBytes::open_gunzipped(&cut).err().unwrap();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert_eq!(&*FileBytes::open_gunzipped(&plain).unwrap(), b"plain");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
