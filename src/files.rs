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
