//! The operator's wallet (`felt serve --wallet`, `docs/operators.md`): the contract's
//! messages ([`wire`]), their signature ([`signature`]), where the wallet is
//! ([`settings`]), the client that sends the calls and judges the answers
//! ([`client`]), and the worker that sends the books' outbox again until answered
//! ([`outbox`]), what a table does with it ([`table`]), and the launch by token ([`launch`]).

pub mod client;
pub mod launch;
pub mod outbox;
pub mod settings;
pub mod signature;
pub mod table;
pub mod wire;

pub use client::{Lost, LostReason, Outcome, WalletClient};
pub use settings::{SettingsError, WalletSettings};
