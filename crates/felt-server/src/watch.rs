//! The meters' watch: a progressive meter linked across tables (and servers) moves
//! with every contribution and award anywhere. The watch waits for a change of the
//! books (PostgreSQL's NOTIFY, sent by the transaction that moved a meter; or, on
//! SQLite, four times a second), reads the meters, and sends those that changed to
//! every table dealt here that shows them and to every lobby following `/api/events`:
//! each client sees a meter change within a second.

use crate::app::Server;
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::{Arc, Weak};
use std::time::Duration;

/// Waits at most the given time for a change of the books made anywhere; returns
/// whether the meters should be read again (true on a signal, and after a lost
/// connection, whose signals may have been missed).
pub type Changes = Box<dyn FnMut(Duration) -> bool + Send>;

/// How long the watch waits for a signal before reading the meters anyway.
const WAIT: Duration = Duration::from_millis(250);

/// Starts the watch on its own thread; it ends with the server.
pub fn spawn(server: Weak<Server>, changes: Option<Changes>) -> Result<(), String> {
    let mut changes: Changes = changes.unwrap_or_else(|| {
        Box::new(|d| {
            std::thread::sleep(d);
            true
        })
    });
    std::thread::Builder::new()
        .name("meters".to_string())
        .spawn(move || {
            let mut last: BTreeMap<String, i64> = BTreeMap::new();
            loop {
                let signalled = changes(WAIT);
                let Some(s) = server.upgrade() else { break };
                if !signalled {
                    continue;
                }
                let Ok(meters) = s.books().read(|st| st.meters()) else {
                    continue;
                };
                let now: BTreeMap<String, i64> = meters
                    .iter()
                    .map(|m| (m.id.clone(), m.amount.as_cents()))
                    .collect();
                let changed: Vec<&String> = now
                    .iter()
                    .filter(|(id, a)| last.get(*id) != Some(*a))
                    .map(|(id, _)| id)
                    .collect();
                if changed.is_empty() {
                    continue;
                }
                let rendered: BTreeMap<&str, crate::render::MeterOut> = meters
                    .iter()
                    .map(|m| (m.id.as_str(), crate::render::MeterOut::from(m)))
                    .collect();
                for (table, ids) in s.tables_with_meters() {
                    if !ids.iter().any(|i| changed.contains(&i)) {
                        continue;
                    }
                    let mine: Vec<crate::render::MeterOut> = ids
                        .iter()
                        .filter_map(|i| rendered.get(i.as_str()).cloned())
                        .collect();
                    let _ = table
                        .tx
                        .send(crate::table::ToTable::Meters { meters: mine });
                }
                let all: Vec<&crate::render::MeterOut> = rendered.values().collect();
                s.publish(Arc::from(
                    json!({"type": "meters", "meters": all})
                        .to_string()
                        .as_str(),
                ));
                last = now;
            }
        })
        .map(|_| ())
        .map_err(|e| e.to_string())
}
