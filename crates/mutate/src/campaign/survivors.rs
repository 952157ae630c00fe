//! Survivors classified by hand (docs/design/campaigns.md §8, survivors): a
//! mutant that survived every seed is either *equivalent* (no program can
//! tell it from the protocol: the reason says why) or a *stimulus gap*
//! (some program could, the campaign's runs did not: the reason says what
//! they miss). Kept in the campaign's `survivors.toml`, a table per mutant
//! id, written by `memconform mutate classify`; the report counts them and
//! scores the campaign without the equivalent ones.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::{err, io_err, shown, write_atomic, Campaign, Error, State, Status};

/// The file, in the campaign directory.
pub const SURVIVORS: &str = "survivors.toml";

/// What a survivor is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// No program tells the mutant from the protocol.
    Equivalent,
    /// A program could; the campaign's runs did not.
    Gap,
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Class::Equivalent => "equivalent",
            Class::Gap => "stimulus gap",
        })
    }
}

/// One survivor's class and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Classified {
    pub class: Class,
    pub reason: String,
}

/// The classified survivors, by mutant id.
pub type Survivors = BTreeMap<String, Classified>;

const HEADER: &str = "\
# Survivors of this campaign, classified by hand (`memconform mutate classify`):
# class = \"equivalent\" (no program tells the mutant from the protocol) or
# \"gap\" (a program could; the campaign's runs did not), and the reason.
";

impl Campaign {
    /// The classified survivors (`survivors.toml`); none when the file is
    /// absent. A malformed file is an error naming its line and column.
    pub fn survivors(&self) -> Result<Survivors, Error> {
        let path = self.dir.join(SURVIVORS);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Survivors::new()),
            Err(e) => return Err(io_err(&path, e)),
        };
        let all: Survivors =
            toml::from_str(&text).map_err(|e| err(format!("{}: {e}", shown(&path))))?;
        for (id, c) in &all {
            if !self.mutants.iter().any(|m| &m.id == id) {
                return Err(err(format!(
                    "{}: `{id}` is not a mutant of this campaign",
                    shown(&path)
                )));
            }
            check_reason(&c.reason).map_err(|why| err(format!("{}: {id}: {why}", shown(&path))))?;
        }
        Ok(all)
    }

    /// Classifies the survivors `ids` name (each a mutant id, a unique
    /// prefix of one, or a catalogue name) as `what`, or takes their class
    /// back (`None`); rewrites `survivors.toml` whole. Refuses a mutant
    /// that is not a survivor in `state`, but takes back the class of one
    /// a later run killed (the report lists it as no longer a survivor).
    /// Returns the full ids.
    pub fn classify(
        &self,
        state: &State,
        ids: &[String],
        what: Option<Classified>,
    ) -> Result<Vec<String>, Error> {
        if let Some(c) = &what {
            check_reason(&c.reason).map_err(err)?;
        }
        let mut all = self.survivors()?;
        let mut done = Vec::new();
        for q in ids {
            let id = self.resolve(q)?;
            match state.status.get(&id) {
                Some(Status::Survived) => {}
                // a class left over: a follow-up run killed it since
                Some(_) if what.is_none() && all.contains_key(&id) => {}
                Some(s) => {
                    return Err(err(format!(
                        "mutant {id} is {}, not a survivor: only survivors are classified",
                        s.name()
                    )))
                }
                None => {
                    return Err(err(format!(
                        "mutant {id} has not finished: only survivors are classified"
                    )))
                }
            }
            match &what {
                Some(c) => {
                    all.insert(id.clone(), c.clone());
                }
                None => {
                    all.remove(&id);
                }
            }
            done.push(id);
        }
        let body = toml::to_string_pretty(&all).map_err(|e| err(e.to_string()))?;
        write_atomic(
            &self.dir.join(SURVIVORS),
            format!("{HEADER}\n{body}").as_bytes(),
        )?;
        Ok(done)
    }

    /// The id `q` names: a mutant id, a unique prefix of one (4 hex digits
    /// at least), or a catalogue name (`ME-8`).
    pub(super) fn resolve(&self, q: &str) -> Result<String, Error> {
        let by_name: Vec<&str> = self
            .mutants
            .iter()
            .filter(|m| {
                m.catalogue_name()
                    .is_some_and(|n| n.split('=').any(|n| n == q))
            })
            .map(|m| m.id.as_str())
            .collect();
        if let [id] = by_name[..] {
            return Ok(id.to_string());
        }
        if q.len() < 4 {
            return Err(err(format!(
                "`{q}`: a mutant id, a prefix of 4 digits or more, or a catalogue name"
            )));
        }
        let hits: Vec<&str> = self
            .mutants
            .iter()
            .filter(|m| m.id.starts_with(q))
            .map(|m| m.id.as_str())
            .collect();
        match hits[..] {
            [id] => Ok(id.to_string()),
            [] => Err(err(format!("`{q}`: no mutant of this campaign"))),
            _ => Err(err(format!(
                "`{q}` names {} mutants ({}): give more digits",
                hits.len(),
                hits.join(", ")
            ))),
        }
    }
}

/// A reason is one line of words.
fn check_reason(reason: &str) -> Result<(), String> {
    if reason.trim().is_empty() {
        return Err("the reason is empty: say why".into());
    }
    if reason.contains(['\n', '\r']) {
        return Err("the reason spans lines: one line, please".into());
    }
    Ok(())
}
