//! Read-only memory-mapped input files.

use std::fs::File;
use std::io;
use std::path::Path;

/// The bytes of a file: memory-mapped when it is a regular non-empty file,
/// read into memory otherwise (empty files, pipes).
pub enum Mapped {
    Map(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Mapped {
    /// Opens `path` and maps it.
    pub fn open(path: &Path) -> io::Result<Mapped> {
        let file = File::open(path)?;
        let meta = file.metadata()?;
        if meta.is_file() && meta.len() > 0 {
            // SAFETY: the map is read-only; a file truncated by another
            // process while mapped is outside what this tool promises.
            let map = unsafe { memmap2::Mmap::map(&file)? };
            Ok(Mapped::Map(map))
        } else {
            let mut buf = Vec::new();
            io::Read::read_to_end(&mut &file, &mut buf)?;
            Ok(Mapped::Owned(buf))
        }
    }
}

impl std::ops::Deref for Mapped {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Mapped::Map(m) => m,
            Mapped::Owned(v) => v,
        }
    }
}
