//! TLS to PostgreSQL: libpq's `sslmode` and `sslrootcert` URL parameters, on rustls.
//!
//! The `postgres` client's URL parser knows only `sslmode=disable|prefer|require` and
//! refuses any parameter it does not know, so both parameters are taken out of the URL
//! here ([`TlsParams::from_url`]) and the rest is handed to [`postgres::Config`].
//!
//! What each mode does, as in libpq:
//!
//! | `sslmode` | TLS | the server's certificate |
//! | --- | --- | --- |
//! | `disable` | never | - |
//! | `allow` | only when the server refuses a connection without it | as `require` |
//! | `prefer` (default) | when the server offers it (a failed handshake falls back to none) | as `require` |
//! | `require` | always | not checked; checked as by `verify-ca` when `sslrootcert` is given |
//! | `verify-ca` | always | signed by a CA of `sslrootcert` (else the system's); any host name |
//! | `verify-full` | always | signed by a CA of `sslrootcert` (else the system's), for the host connected to |
//!
//! `sslrootcert` is a PEM file of CA certificates, read at each connection (a renewed
//! file is used from the next connection on), or `system`: the system's CAs, which as
//! in libpq 16 makes `verify-full` the default and refuses a weaker `sslmode`.
//! libpq's other TLS parameters (client certificates, revocation lists, protocol
//! versions) are refused by name. Every handshake offers the ALPN protocol
//! `postgresql`, as libpq 17 does, so `sslnegotiation=direct` (read by the client)
//! works with PostgreSQL 17.

use ::postgres::config::SslMode as PgSslMode;
use ::postgres::{Client, Config, NoTls};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{verify_server_cert_signed_by_trust_anchor, WebPkiServerVerifier};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::server::ParsedCertificate;
use rustls::{CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore};
use std::path::PathBuf;
use std::sync::Arc;
use tokio_postgres_rustls::MakeRustlsConnect;

/// libpq's `sslmode`: whether TLS is used and what is checked of the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SslMode {
    /// No TLS.
    Disable,
    /// No TLS, unless the server refuses the connection without it.
    Allow,
    /// TLS if the server offers it.
    Prefer,
    /// TLS or no connection.
    Require,
    /// TLS, the certificate signed by a trusted CA (any host name).
    VerifyCa,
    /// TLS, the certificate signed by a trusted CA and issued for the host.
    VerifyFull,
}

impl SslMode {
    /// The mode a `sslmode` value names (libpq's spelling, case included).
    fn parse(value: &str) -> Option<SslMode> {
        Some(match value {
            "disable" => SslMode::Disable,
            "allow" => SslMode::Allow,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            _ => return None,
        })
    }

    /// The value as a URL writes it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Allow => "allow",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }
}

/// Where the CA certificates that sign a trusted server certificate come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RootCert {
    /// A PEM file of CA certificates (`sslrootcert=PATH`).
    File(PathBuf),
    /// The system's CAs (`sslrootcert=system`).
    System,
}

impl RootCert {
    fn describe(&self) -> String {
        match self {
            RootCert::File(p) => format!("sslrootcert={}", p.display()),
            RootCert::System => "sslrootcert=system (the system's CAs)".to_string(),
        }
    }
}

/// The TLS parameters of a connection string, and the string without them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TlsParams {
    /// The connection string for [`postgres::Config`]: `sslmode` and `sslrootcert`
    /// taken out of a URL (any other form unchanged).
    pub(crate) rest: String,
    /// `sslmode`, when the URL gives it.
    pub(crate) mode: Option<SslMode>,
    /// `sslrootcert`, when the URL gives it.
    pub(crate) root: Option<RootCert>,
}

/// Decodes `%XX` escapes (and nothing else: `+` stays `+`, as in libpq).
pub(crate) fn percent_decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or_else(|| format!("`{text}` holds a `%` not followed by two hex digits"))?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("`{text}` does not decode to UTF-8 text"))
}

/// libpq's TLS parameters that felt does not support: refused by name rather than as
/// an unknown option.
const UNSUPPORTED: &[&str] = &[
    "sslcert",
    "sslkey",
    "sslpassword",
    "sslcertmode",
    "sslcrl",
    "sslcrldir",
    "sslsni",
    "sslcompression",
    "ssl_min_protocol_version",
    "ssl_max_protocol_version",
];

impl TlsParams {
    /// Takes `sslmode` and `sslrootcert` out of a `postgres://` or `postgresql://` URL
    /// (names and values percent-decoded; the last of a repeated parameter counts, as
    /// in libpq). Any other connection string is left whole, its `sslmode` read by
    /// [`postgres::Config`]. The error says which parameter is wrong and why.
    pub(crate) fn from_url(url: &str) -> Result<TlsParams, String> {
        let lower = url.get(..13).unwrap_or(url).to_ascii_lowercase();
        let is_url = lower.starts_with("postgres://") || lower.starts_with("postgresql://");
        let Some((base, query)) = url.split_once('?').filter(|_| is_url) else {
            return Ok(TlsParams {
                rest: url.to_string(),
                mode: None,
                root: None,
            });
        };
        let mut mode = None;
        let mut root = None;
        let mut kept = Vec::new();
        for pair in query.split('&') {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let name = percent_decode(key).map_err(|e| format!("a URL parameter's name: {e}"))?;
            match name.as_str() {
                "sslmode" => {
                    let value =
                        percent_decode(value).map_err(|e| format!("the sslmode parameter: {e}"))?;
                    mode = Some(SslMode::parse(&value).ok_or_else(|| {
                        format!(
                            "sslmode={value} is not a TLS mode: use disable, allow, prefer, \
                             require, verify-ca or verify-full"
                        )
                    })?);
                }
                "sslrootcert" => {
                    let value = percent_decode(value)
                        .map_err(|e| format!("the sslrootcert parameter: {e}"))?;
                    root = Some(match value.as_str() {
                        "" => {
                            return Err("sslrootcert is empty: give the path of a PEM file of \
                                        CA certificates, or `system`"
                                .to_string())
                        }
                        "system" => RootCert::System,
                        _ => RootCert::File(PathBuf::from(value)),
                    });
                }
                name if UNSUPPORTED.contains(&name) => {
                    return Err(format!(
                        "{name} is not supported: felt's TLS has no client certificate, \
                         revocation list or protocol version setting; remove it from the URL"
                    ))
                }
                _ => kept.push(pair),
            }
        }
        let rest = if kept.is_empty() {
            base.to_string()
        } else {
            format!("{base}?{}", kept.join("&"))
        };
        Ok(TlsParams { rest, mode, root })
    }

    /// The mode in force: the URL's, else (for `sslrootcert=system`) `verify-full`,
    /// else `fallback` (what [`postgres::Config`] read: `prefer` unless it says).
    /// `sslrootcert=system` with a weaker mode is refused, as by libpq 16: any server
    /// holding a certificate from a public CA, for any name, would pass.
    pub(crate) fn mode(&self, fallback: SslMode) -> Result<SslMode, String> {
        match (self.mode, &self.root) {
            (None, Some(RootCert::System)) => Ok(SslMode::VerifyFull),
            (Some(m), Some(RootCert::System)) if m != SslMode::VerifyFull => Err(format!(
                "sslrootcert=system needs sslmode=verify-full (not sslmode={}): with the \
                 system's CAs, a weaker mode would trust any certificate they signed, for any \
                 host",
                m.name()
            )),
            (Some(m), _) => Ok(m),
            (None, _) => Ok(fallback),
        }
    }
}

/// The mode [`postgres::Config`] read from a connection string.
pub(crate) fn mode_of(config: &Config) -> SslMode {
    match config.get_ssl_mode() {
        PgSslMode::Disable => SslMode::Disable,
        PgSslMode::Require => SslMode::Require,
        _ => SslMode::Prefer,
    }
}

/// The crypto of every TLS connection: rustls' `ring` provider.
fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The CAs of `root`: the file's certificates, or the system's.
fn load_roots(root: &RootCert) -> Result<RootCertStore, String> {
    let mut roots = RootCertStore::empty();
    match root {
        RootCert::File(path) => {
            let shown = path.display();
            let pem = std::fs::read(path)
                .map_err(|e| format!("sslrootcert={shown} cannot be read: {e}"))?;
            let mut found = 0;
            for (n, cert) in CertificateDer::pem_slice_iter(&pem).enumerate() {
                let cert = cert.map_err(|e| {
                    format!("sslrootcert={shown} is not a valid PEM file of certificates: {e}")
                })?;
                roots.add(cert).map_err(|e| {
                    format!(
                        "certificate {} of sslrootcert={shown} cannot be a CA certificate: {e}",
                        n + 1
                    )
                })?;
                found += 1;
            }
            if found == 0 {
                return Err(format!(
                    "sslrootcert={shown} holds no certificate (no PEM \
                     `-----BEGIN CERTIFICATE-----` block)"
                ));
            }
        }
        RootCert::System => {
            let native = rustls_native_certs::load_native_certs();
            let (added, _) = roots.add_parsable_certificates(native.certs);
            if added == 0 {
                let why = native
                    .errors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ");
                return Err(format!(
                    "no system CA certificate was found, to check the server's certificate \
                     against (sslrootcert=system, or verify-ca and verify-full without \
                     sslrootcert, use them; on Debian: apt-get install ca-certificates){}",
                    if why.is_empty() {
                        String::new()
                    } else {
                        format!(": {why}")
                    }
                ));
            }
        }
    }
    Ok(roots)
}

/// The server's certificate as libpq checks it short of `verify-full`, which never
/// looks at the host name. Either way the handshake proves that the server holds the
/// key of the certificate it shows.
#[derive(Debug)]
struct NoNameCheck {
    /// `Some`: for `verify-ca` (and `require` with `sslrootcert`), the certificate must
    /// chain to one of these CAs and be valid now, for any host name (rustls' own check
    /// of the chain, without its check of the name). `None`: for `require` (and
    /// `prefer`, `allow`) without `sslrootcert`, any certificate: the connection is
    /// encrypted, but nothing says the server is the one meant (someone in the middle
    /// can present a certificate of their own; use `verify-full` against an untrusted
    /// network).
    roots: Option<Arc<RootCertStore>>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for NoNameCheck {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        if let Some(roots) = &self.roots {
            let cert = ParsedCertificate::try_from(end_entity)?;
            verify_server_cert_signed_by_trust_anchor(
                &cert,
                roots,
                intermediates,
                now,
                self.algorithms.all,
            )?;
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// How a connection is made: the mode in force and, unless it is `disable`, the TLS
/// connector its checks of the server need.
pub(crate) struct Tls {
    mode: SslMode,
    /// What the server's certificate is checked against, as the errors say it.
    against: String,
    connector: Option<MakeRustlsConnect>,
}

impl Tls {
    /// The connector for `mode` with the CAs of `root` (the system's for `verify-ca`
    /// and `verify-full` without `sslrootcert`). Errors say what is wrong with the
    /// parameters or the CA file.
    pub(crate) fn new(mode: SslMode, root: Option<&RootCert>) -> Result<Tls, String> {
        if mode == SslMode::Disable {
            return Ok(Tls {
                mode,
                against: String::new(),
                connector: None,
            });
        }
        let (against, said) = match (mode, root) {
            (_, Some(r)) => (Some(r.clone()), r.describe()),
            (SslMode::VerifyCa | SslMode::VerifyFull, None) => (
                Some(RootCert::System),
                "the system's CAs (no sslrootcert given)".to_string(),
            ),
            _ => (None, "nothing (no sslrootcert given)".to_string()),
        };
        let provider = provider();
        let algorithms = provider.signature_verification_algorithms;
        let builder = ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS cannot be set up: {e}"))?;
        let mut config = match &against {
            None => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(NoNameCheck {
                    roots: None,
                    algorithms,
                })),
            Some(root) => {
                let roots = Arc::new(load_roots(root)?);
                if mode == SslMode::VerifyFull {
                    let verifier = WebPkiServerVerifier::builder_with_provider(roots, provider)
                        .build()
                        .map_err(|e| format!("{} cannot be used: {e}", root.describe()))?;
                    builder.with_webpki_verifier(verifier)
                } else {
                    builder
                        .dangerous()
                        .with_custom_certificate_verifier(Arc::new(NoNameCheck {
                            roots: Some(roots),
                            algorithms,
                        }))
                }
            }
        }
        .with_no_client_auth();
        // As libpq 17: the protocol named in the handshake, which PostgreSQL 17 requires
        // of a direct TLS connection (`sslnegotiation=direct`) and older servers ignore.
        config.alpn_protocols = vec![b"postgresql".to_vec()];
        Ok(Tls {
            mode,
            against: said,
            connector: Some(MakeRustlsConnect::new(config)),
        })
    }

    /// Connects with `config` as the mode says: `allow` tries without TLS first and
    /// again with it when the server refuses; `prefer` tries with TLS (when the server
    /// offers it) and again without when the handshake fails.
    pub(crate) fn connect(&self, config: &mut Config) -> Result<Client, Failed> {
        match (self.mode, &self.connector) {
            (SslMode::Disable, _) | (_, None) => plain(config),
            (SslMode::Allow, Some(tls)) => match plain(config) {
                Err(Failed::Pg(e)) if refused(&e) => self.encrypted(config, tls, true),
                other => other,
            },
            (SslMode::Prefer, Some(tls)) => match self.encrypted(config, tls, false) {
                Err(Failed::Tls(why)) => plain(config).map_err(|e| match e {
                    Failed::Pg(e) if e.as_db_error().is_some() => Failed::Tls(format!(
                        "{why}; and without TLS (sslmode=prefer tries both): {}",
                        super::error::said(&e)
                    )),
                    other => other,
                }),
                other => other,
            },
            (_, Some(tls)) => self.encrypted(config, tls, true),
        }
    }

    fn encrypted(
        &self,
        config: &mut Config,
        tls: &MakeRustlsConnect,
        required: bool,
    ) -> Result<Client, Failed> {
        config.ssl_mode(if required {
            PgSslMode::Require
        } else {
            PgSslMode::Prefer
        });
        config
            .connect(tls.clone())
            .map_err(|e| match self.tls_failure(&e) {
                Some(why) => Failed::Tls(why),
                None => Failed::Pg(e),
            })
    }

    /// What went wrong with TLS, when `e` is a TLS failure that connecting again
    /// would not cure: the server's certificate refused, no TLS where it is required,
    /// no handshake agreed. `None` for anything else (a lost connection included).
    fn tls_failure(&self, e: &::postgres::Error) -> Option<String> {
        if !e.to_string().starts_with("error performing TLS handshake") {
            return None;
        }
        let mode = self.mode.name();
        let source = std::error::Error::source(e)?;
        let Some(io) = source.downcast_ref::<std::io::Error>() else {
            // The client's own words: no TLS from the server, no host name for it.
            return Some(format!("sslmode={mode}: {source}"));
        };
        let tls = io.get_ref()?.downcast_ref::<rustls::Error>()?;
        let against = &self.against;
        let why = match tls {
            rustls::Error::InvalidCertificate(c) => match c {
                CertificateError::UnknownIssuer => format!(
                    "the server's certificate is not trusted: it is not signed by a CA of \
                     {against}"
                ),
                CertificateError::NotValidForName
                | CertificateError::NotValidForNameContext { .. } => {
                    "the server's certificate is not issued for the host name connected to \
                     (verify-full checks the name against the certificate's subjectAltName; \
                     verify-ca does not)"
                        .to_string()
                }
                CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                    "the server's certificate has expired".to_string()
                }
                CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                    "the server's certificate is not valid yet".to_string()
                }
                _ => "the server's certificate is not trusted".to_string(),
            },
            rustls::Error::AlertReceived(_) => "the server refused the TLS handshake".to_string(),
            _ => "the TLS handshake failed".to_string(),
        };
        Some(format!("sslmode={mode}: {why} ({tls})"))
    }
}

/// A failed connection.
#[derive(Debug)]
pub(crate) enum Failed {
    /// TLS did not work out, for a reason that connecting again would not cure.
    Tls(String),
    /// Anything else, as the client said it.
    Pg(::postgres::Error),
}

fn plain(config: &mut Config) -> Result<Client, Failed> {
    config.ssl_mode(PgSslMode::Disable);
    config.connect(NoTls).map_err(Failed::Pg)
}

/// Whether the server refused the connection (`28...`: e.g. no `pg_hba.conf` line
/// allows it), so that `allow` tries again with TLS.
fn refused(e: &::postgres::Error) -> bool {
    e.as_db_error()
        .is_some_and(|d| d.code().code().starts_with("28"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(url: &str) -> TlsParams {
        TlsParams::from_url(url).unwrap_or_else(|e| panic!("{url}: {e}"))
    }

    #[test]
    fn the_tls_parameters_are_taken_out_and_the_others_kept_in_order() {
        let p = params(
            "postgres://felt:pw@db:5432/felt?application_name=a&sslmode=verify-full\
             &connect_timeout=3&sslrootcert=/etc/felt/ca.pem&password=x",
        );
        assert_eq!(
            p.rest,
            "postgres://felt:pw@db:5432/felt?application_name=a&connect_timeout=3&password=x"
        );
        assert_eq!(p.mode, Some(SslMode::VerifyFull));
        assert_eq!(p.root, Some(RootCert::File("/etc/felt/ca.pem".into())));
        // Nothing left: no `?`.
        let p = params("postgresql://db/felt?sslmode=require");
        assert_eq!(p.rest, "postgresql://db/felt");
        assert_eq!(p.mode, Some(SslMode::Require));
        assert_eq!(p.root, None);
        // No query at all.
        let p = params("postgres://felt@db/felt");
        assert_eq!(p.rest, "postgres://felt@db/felt");
        assert_eq!((p.mode, p.root), (None, None));
        // Every mode by its name.
        for m in [
            SslMode::Disable,
            SslMode::Allow,
            SslMode::Prefer,
            SslMode::Require,
            SslMode::VerifyCa,
            SslMode::VerifyFull,
        ] {
            let p = params(&format!("postgres://db/felt?sslmode={}", m.name()));
            assert_eq!(p.mode, Some(m));
        }
    }

    #[test]
    fn names_and_values_are_percent_decoded_and_the_last_one_counts() {
        let p = params(
            "postgres://db/felt?ssl%6Dode=verify%2Dca&sslrootcert=%2Ftmp%2Fmy%20ca+1.pem\
             &sslmode=verify-full",
        );
        assert_eq!(p.mode, Some(SslMode::VerifyFull));
        assert_eq!(p.root, Some(RootCert::File("/tmp/my ca+1.pem".into())));
        assert_eq!(p.rest, "postgres://db/felt");
        assert_eq!(
            params("postgres://db/felt?sslrootcert=system").root,
            Some(RootCert::System)
        );
        // A path that only spells "system" once decoded is still the system's CAs,
        // as in libpq, which decodes first.
        assert_eq!(
            params("postgres://db/felt?sslrootcert=%73ystem").root,
            Some(RootCert::System)
        );
        assert_eq!(percent_decode("a%20b%2fc").as_deref(), Ok("a b/c"));
        assert_eq!(percent_decode("%C3%A9").as_deref(), Ok("é"));
    }

    #[test]
    fn a_wrong_parameter_is_named_with_what_is_wrong() {
        for (url, says) in [
            (
                "postgres://db/felt?sslmode=verify_full",
                "sslmode=verify_full is not",
            ),
            (
                "postgres://db/felt?sslmode=Require",
                "sslmode=Require is not",
            ),
            ("postgres://db/felt?sslmode=", "sslmode= is not"),
            ("postgres://db/felt?sslrootcert=", "sslrootcert is empty"),
            ("postgres://db/felt?sslrootcert=%2", "sslrootcert parameter"),
            (
                "postgres://db/felt?sslrootcert=%zz",
                "not followed by two hex",
            ),
            ("postgres://db/felt?sslmode=%FF", "UTF-8"),
            (
                "postgres://db/felt?sslcert=/c.pem",
                "sslcert is not supported",
            ),
            (
                "postgres://db/felt?ssl%6Bey=/k.pem",
                "sslkey is not supported",
            ),
            (
                "postgres://db/felt?sslcrl=/r.pem",
                "sslcrl is not supported",
            ),
        ] {
            match TlsParams::from_url(url) {
                Err(e) => assert!(e.contains(says), "{url}: {e}"),
                Ok(p) => panic!("{url} was read as {p:?}"),
            }
        }
    }

    #[test]
    fn system_roots_mean_verify_full() {
        let system = params("postgres://db/felt?sslrootcert=system");
        assert_eq!(system.mode(SslMode::Prefer), Ok(SslMode::VerifyFull));
        let full = params("postgres://db/felt?sslrootcert=system&sslmode=verify-full");
        assert_eq!(full.mode(SslMode::Prefer), Ok(SslMode::VerifyFull));
        for weaker in ["disable", "allow", "prefer", "require", "verify-ca"] {
            let p = params(&format!(
                "postgres://db/felt?sslrootcert=system&sslmode={weaker}"
            ));
            let e = p.mode(SslMode::Prefer).err().unwrap_or_default();
            assert!(e.contains("needs sslmode=verify-full"), "{weaker}: {e}");
        }
        // Without a mode in the URL, the client's own reading counts (prefer).
        assert_eq!(
            params("postgres://db/felt").mode(SslMode::Prefer),
            Ok(SslMode::Prefer)
        );
    }

    #[test]
    fn a_key_value_string_is_left_to_the_client() {
        let kv = "host=db user=felt sslmode=require";
        let p = params(kv);
        assert_eq!(p.rest, kv);
        assert_eq!((p.mode, &p.root), (None, &None));
        let config: Config = p.rest.parse().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(p.mode(mode_of(&config)), Ok(SslMode::Require));
    }

    #[test]
    fn a_ca_file_that_is_missing_empty_or_not_pem_is_refused_with_its_path() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let missing = dir.path().join("missing.pem");
        let empty = dir.path().join("empty.pem");
        let junk = dir.path().join("junk.pem");
        let bad = dir.path().join("bad.pem");
        std::fs::write(&empty, "").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(&junk, "not a certificate\n").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(
            &bad,
            "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        for (file, says) in [
            (&missing, "cannot be read"),
            (&empty, "holds no certificate"),
            (&junk, "holds no certificate"),
            (&bad, "cannot be a CA certificate"),
        ] {
            let root = RootCert::File(file.clone());
            match Tls::new(SslMode::VerifyFull, Some(&root)) {
                Err(e) => {
                    assert!(e.contains(says), "{}: {e}", file.display());
                    assert!(
                        e.contains(&format!("sslrootcert={}", file.display())),
                        "{e}"
                    );
                }
                Ok(_) => panic!("{} was taken as CAs", file.display()),
            }
        }
    }
}
