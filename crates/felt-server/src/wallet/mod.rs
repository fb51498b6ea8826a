//! The operator's wallet (`felt serve --wallet`, `docs/operators.md`): the contract's
//! messages ([`wire`]), their signature ([`signature`]), where the wallet is
//! ([`settings`]) and the client that sends the calls and judges the answers
//! ([`client`]).

pub mod client;
pub mod settings;
pub mod signature;
pub mod wire;

pub use client::{Lost, LostReason, Outcome, WalletClient};
pub use settings::{SettingsError, WalletSettings};
