//! Positioned reads: a file read at an offset from several threads at once
//! (scan's text store, the index's segments), on every platform.

use std::fs::File;
use std::io;

/// Fill `buf` from `file` at `offset`, without moving a cursor that other
/// threads share.
#[cfg(unix)]
pub fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Fill `buf` from `file` at `offset`. Windows' positioned read moves the
/// cursor, but every read here names its own offset.
#[cfg(windows)]
pub fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Fill `buf` from `file` at `offset`: seek and read, one thread at a time
/// (no positioned read on this platform).
#[cfg(not(any(unix, windows)))]
pub fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    static CURSOR: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = CURSOR.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut file = file;
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(buf)
}
