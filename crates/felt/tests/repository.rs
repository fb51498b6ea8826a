//! The repository explains itself: every rule id the code, the docs, the rules files
//! and the tests cite is stated in `docs/rules.md`, and the declared `rust-version` is
//! the newest any dependency of the build and the tests needs, as the README says.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The rule-id prefixes of the rule contract: common rules, Lucky 7, Lucky Lucky,
/// Blazing 7s, Blackjack Bonus, Lucky Ladies.
const PREFIXES: [&str; 6] = ["C", "L7", "LL", "B7", "BB", "LA"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs`, `.md` and `.toml` file of the repository (not build output).
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if p.is_dir() {
            if !(name == "target"
                || name == "node_modules"
                || name.starts_with('.')
                || name == "corpus"
                || name == "artifacts")
            {
                files(&p, out);
            }
        } else if [".rs", ".md", ".toml"].iter().any(|e| name.ends_with(e)) && name != "Cargo.lock"
        {
            out.push(p);
        }
    }
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The rule ids written `C-8a`, `B7-3`, `LL-5` in `text`.
fn written_ids(text: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    for i in 0..chars.len() {
        if i > 0 && (is_word(chars[i - 1]) || chars[i - 1] == '-') {
            continue;
        }
        for p in PREFIXES {
            let pc: Vec<char> = p.chars().collect();
            let n = pc.len();
            if chars.len() < i + n + 2 || chars[i..i + n] != pc[..] || chars[i + n] != '-' {
                continue;
            }
            let mut j = i + n + 1;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            if j == i + n + 1 {
                continue;
            }
            if j < chars.len() && chars[j].is_ascii_lowercase() {
                j += 1;
            }
            if j < chars.len() && is_word(chars[j]) {
                continue;
            }
            ids.push(chars[i..j].iter().collect());
        }
    }
    ids
}

/// The rule ids a function's name cites: `fn l7_3_...`, `fn c_8a_...`,
/// `fn c_12_la_3_...` (a test is named after the rule it proves).
fn named_ids(text: &str) -> Vec<String> {
    let mut ids = Vec::new();
    for part in text.split("fn ").skip(1) {
        let name: String = part.chars().take_while(|c| is_word(*c)).collect();
        let segs: Vec<&str> = name.split('_').collect();
        for w in segs.windows(2) {
            let Some(p) = PREFIXES.iter().find(|p| p.to_lowercase() == w[0]) else {
                continue;
            };
            let number = w[1].trim_end_matches(|c: char| c.is_ascii_lowercase());
            let letters = w[1].len() - number.len();
            if !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) && letters <= 1 {
                ids.push(format!("{p}-{}", w[1]));
            }
        }
    }
    ids
}

/// The ids `docs/rules.md` states: its lines `- **C-8a** ...`.
fn defined_ids(rules_md: &str) -> Vec<String> {
    rules_md
        .lines()
        .filter_map(|l| l.strip_prefix("- **"))
        .filter_map(|l| l.split_once("**").map(|(id, _)| id.to_string()))
        .filter(|id| written_ids(id).len() == 1 && written_ids(id)[0] == *id)
        .collect()
}

#[test]
fn every_rule_id_cited_is_stated_in_docs_rules_md() {
    let root = root();
    let rules_md = std::fs::read_to_string(root.join("docs/rules.md")).unwrap();
    let defined = defined_ids(&rules_md);
    let unique: BTreeSet<&String> = defined.iter().collect();
    assert_eq!(
        unique.len(),
        defined.len(),
        "an id is stated twice: {defined:?}"
    );

    // Each family is numbered from 1 without a gap.
    for p in PREFIXES {
        let numbers: BTreeSet<u32> = defined
            .iter()
            .filter_map(|id| id.strip_prefix(&format!("{p}-")))
            .filter_map(|n| {
                n.trim_end_matches(|c: char| c.is_ascii_lowercase())
                    .parse()
                    .ok()
            })
            .collect();
        let max = numbers.iter().max().copied().unwrap_or(0);
        assert!(max > 0, "docs/rules.md states no {p}- rule");
        assert_eq!(
            numbers.len() as u32,
            max,
            "{p}- rules have a gap: {numbers:?}"
        );
    }

    let mut all = Vec::new();
    files(&root, &mut all);
    let mut cited: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut citing_files = 0;
    for f in &all {
        let text = std::fs::read_to_string(f).unwrap();
        let mut ids = written_ids(&text);
        if f.extension().is_some_and(|e| e == "rs") {
            ids.extend(named_ids(&text));
        }
        citing_files += usize::from(!ids.is_empty());
        let rel = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        for id in ids {
            cited.entry(id).or_default().push(rel.clone());
        }
    }
    // The scan finds the citations there are (a scan that found none would pass).
    assert!(
        citing_files >= 20,
        "only {citing_files} files cite a rule id"
    );
    assert!(cited.len() >= 40, "only {} distinct ids cited", cited.len());
    let undefined: Vec<String> = cited
        .iter()
        .filter(|(id, _)| !unique.contains(id))
        .map(|(id, at)| {
            let mut at = at.clone();
            at.dedup();
            format!("{id} (in {})", at.join(", "))
        })
        .collect();
    assert!(
        undefined.is_empty(),
        "rule ids cited but not stated in docs/rules.md: {undefined:#?}"
    );
}

#[test]
fn the_rule_id_scan_reads_ids_as_written() {
    assert_eq!(
        written_ids("C-8a, B7-3a (LL-5); C-12."),
        ["C-8a", "B7-3a", "LL-5", "C-12"]
    );
    assert!(written_ids("ABC-1 C-x LA- C-1x2 x_C-1 C-8ab").is_empty());
    assert_eq!(
        named_ids("fn c_12_la_3_property() {} fn b7_3a_for() fn cell_1_2() fn la_x()"),
        ["C-12", "LA-3", "B7-3a"]
    );
}

/// `1.88` and `1.88.0` as the same three numbers.
fn version(v: &str) -> [u64; 3] {
    let mut n = [0; 3];
    for (slot, part) in n.iter_mut().zip(v.split('.')) {
        *slot = part.parse().unwrap_or(0);
    }
    n
}

/// The declared `rust-version` is the newest `rust-version` of every package the lock
/// file resolves (build, dev and build-script dependencies alike), as `cargo metadata`
/// reports them: any older toolchain fails `cargo test --workspace`. The README states
/// the same version and the C compiler the bundled SQLite needs.
#[test]
fn rust_version_is_what_the_build_and_the_tests_need() {
    let root = root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    // The packages of this machine's platform: those a build here uses (the others
    // are not downloaded, and cargo metadata works offline only on those fetched).
    let rustc = std::process::Command::new("rustc")
        .arg("-vV")
        .output()
        .unwrap();
    let host = String::from_utf8_lossy(&rustc.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc -vV names the host");
    let out = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline", "--locked"])
        .args(["--filter-platform", &host])
        .current_dir(&root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let members: BTreeSet<&str> = meta["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let mut declared = BTreeSet::new();
    let mut needed: Option<([u64; 3], String)> = None;
    let mut packages = 0;
    for p in meta["packages"].as_array().unwrap() {
        let rv = p["rust_version"].as_str();
        if members.contains(p["id"].as_str().unwrap()) {
            declared.insert(rv.expect("every member declares rust-version").to_string());
            continue;
        }
        packages += 1;
        if let Some(rv) = rv {
            let v = version(rv);
            if needed.as_ref().is_none_or(|(n, _)| v > *n) {
                needed = Some((v, format!("{} {} needs {rv}", p["name"], p["version"])));
            }
        }
    }
    assert!(packages > 50, "only {packages} dependencies resolved");
    assert_eq!(declared.len(), 1, "the members declare {declared:?}");
    let declared = declared.into_iter().next().unwrap();
    let (needed, which) = needed.unwrap();
    assert_eq!(
        version(&declared),
        needed,
        "rust-version = {declared}, but {which}"
    );

    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    assert!(
        readme.contains(&format!("Rust {declared} or newer")),
        "the README does not state Rust {declared}"
    );
    assert!(
        readme.contains("C compiler"),
        "the README does not say a C compiler is needed"
    );
}
