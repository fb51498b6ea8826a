//! The player-protection flags of `felt serve` (docs/server.md, "Player protection"):
//! sessions, lock-outs, reality checks and the help line.

use felt_server::app::Settings;
use felt_server::reality::RealityPolicy;
use felt_server::session_info::DEFAULT_HELP_LINE;

/// Sessions, lock-outs, reality checks and the help line.
#[derive(Debug, clap::Args)]
pub struct Protection {
    /// A session unused this many minutes ends (Pennsylvania: 15; GLI-19: 30).
    #[arg(long, default_value_t = 15, value_parser = clap::value_parser!(u32).range(1..=1440))]
    pub idle_mins: u32,
    /// Any session ends this many hours after its log-in, used or not.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=168))]
    pub session_max_hours: u32,
    /// Failed log-ins in a row that lock an account (New Jersey: 3).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub lock_after: u32,
    /// How long a lock lasts, in minutes; 0: until an operator lifts it (New Jersey).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(0..=525_600))]
    pub lock_mins: u32,
    /// The reality check's interval for a player who has not chosen one (minutes).
    #[arg(long, default_value_t = 60)]
    pub reality_check_mins: u32,
    /// The shortest reality-check interval a player may choose (minutes).
    #[arg(long, default_value_t = 15)]
    pub reality_check_shortest: u32,
    /// The longest reality-check interval a player may choose (minutes; Pennsylvania:
    /// at most 60).
    #[arg(long, default_value_t = 60)]
    pub reality_check_longest: u32,
    /// The responsible-gambling message shown at log-in and log-out, with its help line.
    #[arg(long, default_value = DEFAULT_HELP_LINE)]
    pub help_line: String,
}

impl Protection {
    /// The reality check's policy and the help line; a range that is empty or misses
    /// its default, or an empty help line, is refused.
    pub fn check(&self) -> anyhow::Result<(RealityPolicy, &str)> {
        let reality = RealityPolicy::new(
            self.reality_check_mins,
            self.reality_check_shortest,
            self.reality_check_longest,
        )
        .map_err(|e| anyhow::anyhow!("--reality-check-*: {e}"))?;
        let help_line = self.help_line.trim();
        anyhow::ensure!(
            !help_line.is_empty() && help_line.chars().count() <= 500,
            "--help-line: 1 to 500 characters (a message with the help line's number)"
        );
        Ok((reality, help_line))
    }

    /// Writes these flags into `settings` (refused as [`Protection::check`] says).
    pub fn apply(&self, settings: &mut Settings) -> anyhow::Result<()> {
        let (reality, help_line) = self.check()?;
        settings.idle_ms = i64::from(self.idle_mins) * 60_000;
        settings.lock.after = self.lock_after;
        settings.lock.for_ms = match self.lock_mins {
            0 => felt_server::lockout::UNTIL_LIFTED,
            m => i64::from(m) * 60_000,
        };
        settings.protection.reality = reality;
        settings.protection.help_line = help_line.to_string();
        settings.protection.session_max_ms = i64::from(self.session_max_hours) * 3_600_000;
        Ok(())
    }
}
