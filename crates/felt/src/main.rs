//! The `felt` command line: list and print games, play at the terminal table,
//! analyse and simulate.
#![forbid(unsafe_code)]

mod bounded;
mod cmd;
mod exact_arg;
mod game_arg;
mod numbers;
mod play;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// felt: casino blackjack with side bets: play, know the exact edge, simulate.
#[derive(Debug, Parser)]
#[command(name = "felt", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List the preset games.
    Games,
    /// Print the plain-language rules card of a game (a preset name or a rules file).
    Rules(cmd::rules::Args),
    /// Sit at the terminal table and play a game.
    Play(play::Args),
    /// Print the par sheet: the exact house edge of the main game and every side bet.
    Edge(cmd::edge::Args),
    /// Print the exact effects of removal: how each wager's edge moves as one card of
    /// each value leaves the shoe.
    Eor(cmd::eor::Args),
    /// Compare counting systems with each wager's effects of removal, and fit the best
    /// simple count to each wager.
    Count(cmd::count::Args),
    /// Compute a count's index plays for a game: for every hand and up card where the
    /// count changes the best play, the true count at which it changes.
    Indices(cmd::indices::Args),
    /// Risk of ruin (for ever, within N hands, before a goal), the bankroll for a
    /// target risk, N0, DI and SCORE.
    Risk(cmd::risk::Args),
    /// Print the basic strategy computed from the rules.
    Strategy(cmd::strategy::Args),
    /// The value of splitting a pair against an up card with every decision on every
    /// card seen in the round, beside the CDZ-, CDP1 and CDP values.
    Split(cmd::split::Args),
    /// Simulate a game on the real engine: house edge per wager with its standard error.
    Sim(cmd::sim::Args),
    /// Merge the shard files of one `felt sim --shard I/N` run into its report.
    Merge(cmd::sim_count::MergeArgs),
    /// Show the books: balances, progressive meters and their last awards, and the audit.
    Books(cmd::books::Args),
    /// List past rounds with their cards, actions, wagers and results.
    History(cmd::history::Args),
    /// Replay a stored round through the engine and prove it identical to its log.
    Replay(cmd::replay::Args),
    /// Run the online tables: HTTP and WebSocket for many players (see docs/server.md).
    Serve(cmd::serve::Args),
    /// Bots that play at the online tables through the WebSocket protocol, and report
    /// rounds, refusals, errors and latency.
    Bots(cmd::bots::Args),
    /// Make an operator login of the online tables (password on standard input).
    Operator(cmd::operator::Args),
    /// List the calls to the operator's wallet with their state, for reconciliation.
    Wallet(cmd::wallet::Args),
    /// A reference operator's wallet (docs/operators.md), with faults to inject for
    /// tests, and its launch links.
    #[command(name = "operator-demo")]
    OperatorDemo(cmd::operator_demo::Args),
    /// Check each retired shoe's seed against the commitment published before its
    /// first card, and the cards it dealt against the order its seed gives.
    Verify(cmd::verify::Args),
    /// Statistical tests of the shuffle: felt's own dealing path, recorded shoes or the
    /// books' retired shoes, and the seed stream, with a verdict at the 99% level.
    RngTest(cmd::rng_test::Args),
}

fn main() -> ExitCode {
    survive_file_size_limit();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Games => cmd::games::run(),
        Command::Rules(a) => cmd::rules::run(&a),
        Command::Play(a) => play::run(&a),
        Command::Edge(a) => cmd::edge::run(&a),
        Command::Eor(a) => cmd::eor::run(&a),
        Command::Count(a) => cmd::count::run(&a),
        Command::Indices(a) => cmd::indices::run(&a),
        Command::Risk(a) => cmd::risk::run(&a),
        Command::Strategy(a) => cmd::strategy::run(&a),
        Command::Split(a) => cmd::split::run(&a),
        Command::Sim(a) => cmd::sim::run(&a),
        Command::Merge(a) => cmd::sim_count::merge(&a),
        Command::Books(a) => cmd::books::run(&a),
        Command::History(a) => cmd::history::run(&a),
        Command::Replay(a) => cmd::replay::run(&a),
        Command::Verify(a) => cmd::verify::run(&a),
        Command::RngTest(a) => cmd::rng_test::run(&a),
        Command::Serve(a) => cmd::serve::run(&a),
        Command::Operator(a) => cmd::operator::run(&a),
        Command::OperatorDemo(a) => cmd::operator_demo::run(&a),
        Command::Wallet(a) => cmd::wallet::run(&a),
        Command::Bots(a) => cmd::bots::run(&a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of the output went away (`felt history | head`): nothing to report.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("felt: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// A write past a file-size limit (`ulimit -f`) raises SIGXFSZ, whose default action
/// ends the process at once, without a word and in the middle of a step. With a
/// handler installed (it only sets a flag nobody reads) the signal is harmless and the
/// write fails with `EFBIG` instead: the books report it as a full disk or a file-size
/// limit (with what is safe), and felt exits non-zero. `signal-hook` installs the
/// handler without `unsafe` in this crate. Ignoring the signal (`SIG_IGN`) would do the
/// same, but has no safe API.
fn survive_file_size_limit() {
    #[cfg(unix)]
    {
        let seen = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        // Should it fail (it does not for this signal), the default stays: the books
        // are still safe, only the message is lost.
        let _ = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, seen);
    }
}

/// Whether `e` comes from writing to a closed pipe.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
