//! The player-protection flags of `felt serve` (docs/server.md, "Player protection"):
//! a jurisdiction's profile, then sessions, lock-outs, reality checks and the help
//! line, each flag given overriding the profile's value.

use felt_server::app::Settings;
use felt_server::reality::RealityPolicy;
use felt_server::session_info::DEFAULT_HELP_LINE;

/// A jurisdiction's defaults for the protection settings (docs/compliance.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Jurisdiction {
    /// The tightest value of every rule below that a server can meet for all of them:
    /// 15 minutes idle, 3 failures lock for 30 minutes, a reality check every 60
    /// minutes (15 to 60).
    Strictest,
    /// New Jersey (N.J.A.C. 13:69O-1.4(i)): 3 failed log-ins lock the account until an
    /// operator lifts it.
    Nj,
    /// Pennsylvania: 15 minutes idle (58 Pa. Code 812a.3(a)(6)); a reality check at least
    /// hourly, 15 or 30 minutes on request (814a.1(e)(2), (3)).
    Pa,
    /// Great Britain (UKGC RTS 13B): the player sets the reality check's interval, and
    /// of a preset list the default is the shortest (15 minutes; up to 180).
    Uk,
    /// GLI-19 alone: 30 minutes idle (2.5.4), 3 failures lock (2.5.3(d)).
    Gli,
}

/// The values a profile sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Profile {
    idle_mins: u32,
    lock_after: u32,
    /// 0: until an operator lifts it.
    lock_mins: u32,
    reality: (u32, u32, u32),
}

impl Jurisdiction {
    fn profile(self) -> Profile {
        let strictest = Profile {
            idle_mins: 15,
            lock_after: 3,
            lock_mins: 30,
            reality: (60, 15, 60),
        };
        match self {
            Jurisdiction::Strictest | Jurisdiction::Pa => strictest,
            Jurisdiction::Nj => Profile {
                lock_mins: 0,
                ..strictest
            },
            Jurisdiction::Uk => Profile {
                reality: (15, 15, 180),
                ..strictest
            },
            Jurisdiction::Gli => Profile {
                idle_mins: 30,
                ..strictest
            },
        }
    }
}

/// Sessions, lock-outs, reality checks and the help line.
#[derive(Debug, clap::Args)]
pub struct Protection {
    /// Whose rules set the defaults of the flags below (each flag given overrides its
    /// profile's value); `strictest` meets them all at once.
    #[arg(long, value_enum, default_value = "strictest")]
    pub jurisdiction: Jurisdiction,
    /// A session unused this many minutes ends (profile: 15; GLI-19: 30).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1440))]
    pub idle_mins: Option<u32>,
    /// Any session ends this many hours after its log-in, used or not.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..=168))]
    pub session_max_hours: u32,
    /// Failed log-ins in a row that lock an account (profile: 3).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub lock_after: Option<u32>,
    /// How long a lock lasts, in minutes; 0: until an operator lifts it (profile: 30;
    /// New Jersey: 0).
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=525_600))]
    pub lock_mins: Option<u32>,
    /// The reality check's interval for a player who has not chosen one (minutes;
    /// profile: 60; UK: 15).
    #[arg(long)]
    pub reality_check_mins: Option<u32>,
    /// The shortest reality-check interval a player may choose (minutes; profile: 15).
    #[arg(long)]
    pub reality_check_shortest: Option<u32>,
    /// The longest reality-check interval a player may choose (minutes; profile: 60,
    /// Pennsylvania's most; UK: 180).
    #[arg(long)]
    pub reality_check_longest: Option<u32>,
    /// The responsible-gambling message shown at log-in and log-out, with its help line.
    #[arg(long, default_value = DEFAULT_HELP_LINE)]
    pub help_line: String,
}

impl Protection {
    /// The profile's values with the flags given over them.
    fn resolved(&self) -> Profile {
        let p = self.jurisdiction.profile();
        let (mins, shortest, longest) = p.reality;
        Profile {
            idle_mins: self.idle_mins.unwrap_or(p.idle_mins),
            lock_after: self.lock_after.unwrap_or(p.lock_after),
            lock_mins: self.lock_mins.unwrap_or(p.lock_mins),
            reality: (
                self.reality_check_mins.unwrap_or(mins),
                self.reality_check_shortest.unwrap_or(shortest),
                self.reality_check_longest.unwrap_or(longest),
            ),
        }
    }

    /// The reality check's policy and the help line; a range that is empty or misses
    /// its default, or an empty help line, is refused.
    pub fn check(&self) -> anyhow::Result<(RealityPolicy, &str)> {
        let (mins, shortest, longest) = self.resolved().reality;
        let reality = RealityPolicy::new(mins, shortest, longest).map_err(|e| {
            anyhow::anyhow!(
                "--reality-check-* (with --jurisdiction {:?}'s values for those not given): {e}",
                self.jurisdiction
            )
        })?;
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
        let p = self.resolved();
        settings.idle_ms = i64::from(p.idle_mins) * 60_000;
        settings.lock.after = p.lock_after;
        settings.lock.for_ms = match p.lock_mins {
            0 => felt_server::lockout::UNTIL_LIFTED,
            m => i64::from(m) * 60_000,
        };
        settings.protection.reality = reality;
        settings.protection.help_line = help_line.to_string();
        settings.protection.session_max_ms = i64::from(self.session_max_hours) * 3_600_000;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        protection: Protection,
    }

    fn settings(args: &[&str]) -> anyhow::Result<Settings> {
        let cli = Cli::try_parse_from(std::iter::once("serve").chain(args.iter().copied()))?;
        let mut s = Settings::default();
        cli.protection.apply(&mut s)?;
        Ok(s)
    }

    fn reality(s: &Settings) -> (u32, u32, u32) {
        let r = &s.protection.reality;
        (r.default_mins, r.min_mins, r.max_mins)
    }

    #[test]
    fn each_jurisdiction_sets_its_defaults_and_a_flag_given_overrides_them() {
        let strictest = settings(&[]).unwrap();
        assert_eq!(
            (
                strictest.idle_ms,
                strictest.lock.after,
                strictest.lock.for_ms
            ),
            (15 * 60_000, 3, 30 * 60_000)
        );
        assert_eq!(reality(&strictest), (60, 15, 60));
        let nj = settings(&["--jurisdiction", "nj"]).unwrap();
        assert_eq!(nj.lock.for_ms, felt_server::lockout::UNTIL_LIFTED);
        let uk = settings(&["--jurisdiction", "uk"]).unwrap();
        assert_eq!(reality(&uk), (15, 15, 180), "the shortest is the default");
        let gli = settings(&["--jurisdiction", "gli"]).unwrap();
        assert_eq!(gli.idle_ms, 30 * 60_000);
        let pa = settings(&["--jurisdiction", "pa"]).unwrap();
        assert_eq!((pa.idle_ms, reality(&pa).2), (15 * 60_000, 60));
        // A flag given wins over the profile.
        let nj_timed = settings(&["--jurisdiction", "nj", "--lock-mins", "45"]).unwrap();
        assert_eq!(nj_timed.lock.for_ms, 45 * 60_000);
        let gli_short = settings(&["--jurisdiction", "gli", "--idle-mins", "10"]).unwrap();
        assert_eq!(gli_short.idle_ms, 10 * 60_000);
        // A range the profile's default falls outside of is refused, naming the flags.
        let e = settings(&["--jurisdiction", "uk", "--reality-check-shortest", "30"])
            .unwrap_err()
            .to_string();
        assert!(e.contains("--reality-check-"), "{e}");
        assert!(settings(&["--jurisdiction", "mars"]).is_err());
    }
}
