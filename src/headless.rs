//! `rillet run`: a headless run of a scene that writes probe time series as CSV. (Being built.)

use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Scene file (RON).
    pub scene: PathBuf,
    /// Steps to run.
    #[arg(long, default_value_t = 1000)]
    pub steps: u32,
    /// Output folder for the CSV files.
    #[arg(long, default_value = "out")]
    pub out: PathBuf,
}

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    anyhow::bail!("`rillet run` is not built yet (scene {})", args.scene.display())
}
