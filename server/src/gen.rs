//! mazerace gen (written by the lead).
#[derive(clap::Args, Debug)]
pub struct GenArgs {}
pub fn run(_args: GenArgs) -> anyhow::Result<()> {
    Ok(())
}
