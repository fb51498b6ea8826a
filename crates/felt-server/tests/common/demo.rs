//! The reference operator (`felt operator-demo`) in the test's process, on a free port.

use felt_core::Money;
use felt_server::metrics::Metrics;
use felt_server::operator_demo::books::{DemoBooks, LedgerRow};
use felt_server::operator_demo::faults::Faults;
use felt_server::operator_demo::{self, DemoWallet};
use felt_server::wallet::settings::checked_url;
use felt_server::wallet::{WalletClient, WalletSettings};
use std::sync::Arc;
use std::time::Duration;

/// The secret the tests' wallet calls are signed with.
pub const SECRET: &[u8] = b"a test secret of at least thirty-two bytes";

/// A running reference operator.
pub struct Operator {
    /// Its wallet (books and faults).
    pub wallet: Arc<DemoWallet>,
    /// Its base URL (felt's `--wallet`).
    pub url: String,
    _dir: tempfile::TempDir,
}

impl Operator {
    /// Starts an operator whose players are `(id, name, balance in cents)`.
    pub async fn start(players: &[(&str, &str, i64)]) -> Operator {
        let dir = tempfile::tempdir().unwrap();
        let mut books = DemoBooks::open(&dir.path().join("operator.db")).unwrap();
        for (id, name, cents) in players {
            books
                .add_player(id, name, "EUR", Money::cents(*cents))
                .unwrap();
        }
        let wallet = Arc::new(DemoWallet::new(books, SECRET.to_vec(), Faults::default()));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/wallet", listener.local_addr().unwrap());
        tokio::spawn(operator_demo::serve(listener, wallet.clone()));
        Operator {
            wallet,
            url,
            _dir: dir,
        }
    }

    /// felt's settings for this wallet, signing with `secret`, calls timing out after
    /// `timeout`.
    pub fn settings(&self, secret: &[u8], timeout: Duration) -> WalletSettings {
        let mut s = WalletSettings::new(checked_url(&self.url).unwrap(), secret.to_vec())
            .unwrap_or_else(|len| panic!("a secret of {len} bytes"));
        s.timeout = timeout;
        s
    }

    /// A client of this wallet signing with `secret` (calls time out after 700 ms).
    pub fn client(&self, secret: &[u8], metrics: &Arc<Metrics>) -> WalletClient {
        let settings = self.settings(secret, Duration::from_millis(700));
        WalletClient::new(settings, metrics.clone()).unwrap()
    }

    /// Sets the faults (`--fault` words).
    pub fn faults(&self, words: &[&str]) {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        self.wallet.set_faults(Faults::parse(&words).unwrap());
    }

    /// A new launch link, valid for a minute, of `player` at `table` of the felt
    /// server at `felt` (`http://host:port`).
    pub async fn launch_link(&self, felt: &str, player: &str, table: &str) -> String {
        let p = player.to_string();
        let expires = felt_server::wallet::signature::unix_now() + 60;
        let token = self
            .wallet
            .with_books(move |b| b.launch_token(&p, expires))
            .await
            .unwrap();
        operator_demo::launch_link(felt, &token, table).unwrap()
    }

    /// Holds the operator's books (every call waits) until the sender is used.
    pub async fn hold(&self) -> std::sync::mpsc::Sender<()> {
        let (release, wait) = std::sync::mpsc::channel::<()>();
        let (taken, held) = tokio::sync::oneshot::channel::<()>();
        let wallet = self.wallet.clone();
        tokio::spawn(async move {
            wallet
                .with_books(move |_| {
                    let _ = taken.send(());
                    let _ = wait.recv();
                    Ok(())
                })
                .await
        });
        held.await.unwrap();
        release
    }

    /// A player's balance at the operator.
    pub async fn balance(&self, player: &str) -> Money {
        let p = player.to_string();
        self.wallet
            .with_books(move |b| b.balance_of(&p))
            .await
            .unwrap()
            .unwrap()
    }

    /// The operator's ledger.
    pub async fn ledger(&self) -> Vec<LedgerRow> {
        self.wallet.with_books(|b| b.ledger()).await.unwrap()
    }

    /// How many times the operator's ledger moved money for `id`.
    pub async fn applied(&self, id: &str) -> usize {
        self.ledger()
            .await
            .iter()
            .filter(|r| r.transaction_id == id)
            .count()
    }
}
