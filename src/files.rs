//! Writing files whole: a file is written under a temporary name beside it and renamed, so it
//! is either the old one or the new one in full — never cut short by a full disk, a crash or a
//! signal — and an error names the file.

use anyhow::Context as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` through `path.tmp` and a rename.
pub fn write_whole(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let result = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(bytes).and_then(|()| f.sync_data()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(e).with_context(|| format!("cannot write {}", path.display()));
    }
    Ok(())
}

/// Reads a whole file, refusing before it is opened what is not a regular file after following
/// links: opening a FIFO blocks until a writer comes (signals unheard), a device never ends.
pub(crate) fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    let kind = std::fs::metadata(path)?.file_type();
    if !kind.is_file() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("not a regular file but {}", file_kind(kind))));
    }
    std::fs::read(path)
}

/// What a file that is not a regular file is, in words.
fn file_kind(kind: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        if kind.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "a device";
        }
    }
    if kind.is_dir() { "a folder" } else { "not a file" }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A folder and (on Unix) a FIFO are refused at once, without opening them; a file reads.
    #[test]
    fn only_regular_files_are_read() {
        let dir = std::env::temp_dir().join(format!("rillet-regular-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let err = read_regular(&dir).unwrap_err();
        assert!(err.to_string().contains("a folder"), "{err}");
        let file = dir.join("a.txt");
        std::fs::write(&file, b"abc").unwrap();
        assert_eq!(read_regular(&file).unwrap(), b"abc");
        #[cfg(unix)]
        {
            let fifo = dir.join("pipe");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs");
            assert!(made.success());
            let err = read_regular(&fifo).unwrap_err();
            assert!(err.to_string().contains("FIFO"), "{err}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
