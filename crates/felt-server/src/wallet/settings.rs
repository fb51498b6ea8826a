//! `felt serve --wallet URL --wallet-secret-file FILE`: where the operator's wallet is
//! and the secret the calls are signed with; refused without a secret file, with a
//! short secret, or with `http://` to anything but this machine.

use super::signature::MIN_SECRET;
use std::net::IpAddr;
use std::path::Path;
use std::time::Duration;

/// How long a connection to the wallet may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// How long a whole call may take (its answer read to the end).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// The operator's wallet: its base URL, the shared secret and the timeouts.
pub struct WalletSettings {
    base: reqwest::Url,
    secret: Vec<u8>,
    /// How long a connection may take.
    pub connect_timeout: Duration,
    /// How long a whole call may take.
    pub timeout: Duration,
}

impl std::fmt::Debug for WalletSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WalletSettings")
            .field("base", &self.base.as_str())
            .field("secret", &"(hidden)")
            .field("connect_timeout", &self.connect_timeout)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Why the wallet's settings are refused.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The URL is not one.
    #[error("--wallet `{url}` is not a URL ({why})")]
    BadUrl {
        /// The URL given.
        url: String,
        /// What is wrong.
        why: String,
    },
    /// `http://` to another machine: the calls and the secret's signatures would cross
    /// the network in clear.
    #[error(
        "--wallet `{url}`: plain http:// is only for a wallet on this machine (127.0.0.1, ::1, \
         localhost); use https:// for {host}"
    )]
    PlainHttp {
        /// The URL given.
        url: String,
        /// Its host.
        host: String,
    },
    /// No secret file was given.
    #[error("--wallet needs --wallet-secret-file FILE: the calls are signed with its secret")]
    NoSecretFile,
    /// The secret file cannot be read.
    #[error("cannot read the wallet's secret file {path}: {cause}")]
    SecretFile {
        /// The file.
        path: String,
        /// Why.
        cause: std::io::Error,
    },
    /// The secret is too short.
    #[error("the wallet's secret in {path} is {len} bytes; it must be at least {MIN_SECRET}")]
    ShortSecret {
        /// The file.
        path: String,
        /// Its length.
        len: usize,
    },
}

impl WalletSettings {
    /// The settings of `--wallet url --wallet-secret-file secret_file`.
    pub fn from_args(
        url: &str,
        secret_file: Option<&Path>,
    ) -> Result<WalletSettings, SettingsError> {
        let base = checked_url(url)?;
        let path = secret_file.ok_or(SettingsError::NoSecretFile)?;
        let shown = path.display().to_string();
        let mut secret = std::fs::read(path).map_err(|cause| SettingsError::SecretFile {
            path: shown.clone(),
            cause,
        })?;
        for end in [b'\n', b'\r'] {
            if secret.last() == Some(&end) {
                secret.pop();
            }
        }
        WalletSettings::new(base, secret)
            .map_err(|len| SettingsError::ShortSecret { path: shown, len })
    }

    /// Settings of a checked base URL and a secret; `Err(length)` for a short secret.
    pub fn new(base: reqwest::Url, secret: Vec<u8>) -> Result<WalletSettings, usize> {
        if secret.len() < MIN_SECRET {
            return Err(secret.len());
        }
        Ok(WalletSettings {
            base,
            secret,
            connect_timeout: CONNECT_TIMEOUT,
            timeout: CALL_TIMEOUT,
        })
    }

    /// The secret the calls are signed with.
    pub fn secret(&self) -> &[u8] {
        &self.secret
    }

    /// The URL of call `name`: the base URL and `/name`.
    pub fn url_of(&self, name: &str) -> String {
        format!("{}/{name}", self.base.as_str().trim_end_matches('/'))
    }
}

/// The wallet's base URL, if it is `https://`, or `http://` to this machine.
pub fn checked_url(url: &str) -> Result<reqwest::Url, SettingsError> {
    let bad = |why: &str| SettingsError::BadUrl {
        url: url.to_string(),
        why: why.to_string(),
    };
    let parsed = reqwest::Url::parse(url).map_err(|e| bad(&e.to_string()))?;
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(bad("a wallet's URL has no query or fragment"));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(bad(
            "the calls are signed: put no user or password in the URL",
        ));
    }
    let host = parsed.host_str().ok_or_else(|| bad("it names no host"))?;
    match parsed.scheme() {
        "https" => Ok(parsed),
        "http" if is_loopback(host) => Ok(parsed),
        "http" => Err(SettingsError::PlainHttp {
            url: url.to_string(),
            host: host.to_string(),
        }),
        other => Err(bad(&format!("the scheme is {other}, not https"))),
    }
}

fn is_loopback(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_goes_to_this_machine_only() {
        for fine in [
            "https://wallet.example.com/felt",
            "https://10.0.0.5:8443/",
            "http://127.0.0.1:9090/wallet",
            "http://127.8.9.1/wallet",
            "http://localhost:9090",
            "http://[::1]:9090/wallet",
        ] {
            assert!(checked_url(fine).is_ok(), "{fine}");
        }
        for plain in [
            "http://wallet.example.com/felt",
            "http://10.0.0.5/",
            "http://localhost.example.com/",
            "http://[::2]/",
        ] {
            assert!(
                matches!(checked_url(plain), Err(SettingsError::PlainHttp { .. })),
                "{plain}"
            );
        }
        for bad in [
            "wallet.example.com",
            "ftp://127.0.0.1/",
            "https://user:pw@wallet.example.com/",
            "https://wallet.example.com/?a=1",
        ] {
            assert!(
                matches!(checked_url(bad), Err(SettingsError::BadUrl { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_secret_file_is_required_and_long_enough() {
        let url = "http://127.0.0.1:9/wallet/";
        assert!(matches!(
            WalletSettings::from_args(url, None),
            Err(SettingsError::NoSecretFile)
        ));
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none");
        assert!(matches!(
            WalletSettings::from_args(url, Some(&missing)),
            Err(SettingsError::SecretFile { .. })
        ));
        let short = dir.path().join("short");
        std::fs::write(&short, "0123456789012345678901234567890\n").unwrap();
        assert!(matches!(
            WalletSettings::from_args(url, Some(&short)),
            Err(SettingsError::ShortSecret { len: 31, .. })
        ));
        let good = dir.path().join("good");
        std::fs::write(&good, "01234567890123456789012345678901\n").unwrap();
        let s = WalletSettings::from_args(url, Some(&good)).unwrap();
        assert_eq!(s.secret(), b"01234567890123456789012345678901");
        assert_eq!(s.url_of("debit"), "http://127.0.0.1:9/wallet/debit");
        assert!(!format!("{s:?}").contains("0123456789"));
    }
}
