//! Mutation campaigns: a protocol's SLICC files read structurally
//! ([`slicc`]), mutated by line-preserving operators ([`ops`]), each mutant
//! a unified diff with a stable id ([`patch`]); a campaign ([`campaign`])
//! builds and runs every mutant with the user's own gem5 tree and
//! commands, in private copies, and says what caught it; one mutant can
//! also be shown and applied in the user's tree ([`single`]).
//! Design: docs/design/campaigns.md (operators §2, sites §3, identity §5,
//! runner §6, outcomes §7, reports §8).

pub mod campaign;
pub mod coverage;
pub mod plot;
pub mod reach;
pub mod report;
pub mod sample;
pub mod slurm;
pub mod stimulus;

use serde::{Deserialize, Serialize};

/// One mutant: a single line-preserving edit of one SLICC file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mutant {
    /// The first 12 hex digits of the descriptor's SHA-256: stable under
    /// reformatting and edits elsewhere in the file.
    pub id: String,
    /// `<file name>::<site>::<operator>`, e.g.
    /// `MI_example-cache.sm::transition(M,Fwd_GETX,I)::e_sendData::TDA`.
    pub descriptor: String,
    /// The operator's short name (`TDA`, `TSW`, `TNS-stay`, `ADS`, ...).
    pub op: String,
    /// `tier1`, `tier2`, `liveness`, `crash` (see `ops`), with tags such as
    /// `needs:o3` after a `+`.
    pub class: String,
    /// The file, relative to the gem5 root (`src/mem/ruby/protocol/...`).
    pub file: String,
    /// The first line the edit touches (1-based).
    pub line: usize,
    /// The site in words (`transition(M, Fwd_GETX, I)`, `action(e_sendData)`).
    pub site: String,
    /// SHA-256 (hex) of the base file the patch applies to.
    pub base_sha256: String,
    /// The unified diff against the gem5 root, with its preamble
    /// (`memconform-mutant: ID`, `site: DESCRIPTOR`, `base-sha256: ...`).
    pub patch: String,
    /// The transition counters of gem5's `stats.txt` (`Machine.State.Event`,
    /// of `<Machine>_Controller.<State>.<Event>`) one of which a run must
    /// increment to execute the edited code; `None` when no counter tells
    /// (a `z_stall` header). A mutant none of whose counters fired in a
    /// baseline seed runs exactly as the baseline on that seed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fires: Option<Vec<String>>,
    /// A configuration mutant's gem5 parameter assignments, given to the
    /// run as `--param` (`system.cpu[:].needsTSO=False`): no patch, no
    /// build. Empty for a SLICC mutant.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<String>,
}

/// The operator of configuration mutants: a gem5 parameter set at run time.
pub const CONFIG_OP: &str = "CFG";
/// Their class.
pub const CONFIG_CLASS: &str = "config";

/// Adds to `into` each mutant of `more` whose id it lacks, and returns their
/// ids; a mutant it has already takes a catalogue name it lacks.
pub fn merge(into: &mut Vec<Mutant>, more: Vec<Mutant>) -> Vec<String> {
    let mut added = Vec::new();
    for m in more {
        match into.iter_mut().find(|g| g.id == m.id) {
            Some(g) => {
                if let (Some(n), None) = (m.catalogue_name(), g.catalogue_name()) {
                    g.tag_catalogue(n);
                }
            }
            None => {
                added.push(m.id.clone());
                into.push(m);
            }
        }
    }
    added
}

/// What a catalogue bug's class carries after its default class, with its
/// name (`tier1+catalogue:MI-5`).
const CATALOGUE_TAG: &str = "+catalogue:";

impl Mutant {
    /// A configuration mutant: gem5 run with `param` (`PATH=VALUE`, as
    /// se.py's `--param` takes it) and no other change. Its id is the
    /// SHA-256 of `gem5-param::PARAM::CFG`, like a SLICC mutant's.
    pub fn config(param: &str) -> Result<Mutant, String> {
        let param = param.trim();
        let Some((path, value)) = param.split_once('=') else {
            return Err(format!(
                "`{param}` is not a gem5 parameter assignment PATH=VALUE"
            ));
        };
        if path.trim().is_empty() || value.trim().is_empty() || param.contains(['\n', '\r']) {
            return Err(format!(
                "`{param}` is not a gem5 parameter assignment PATH=VALUE"
            ));
        }
        let descriptor = format!("gem5-param::{param}::{CONFIG_OP}");
        Ok(Mutant {
            id: mutant_id(&descriptor),
            descriptor,
            op: CONFIG_OP.to_string(),
            class: CONFIG_CLASS.to_string(),
            file: String::new(),
            line: 0,
            site: format!("--param {param}"),
            base_sha256: String::new(),
            patch: String::new(),
            fires: None,
            params: vec![param.to_string()],
        })
    }

    /// Whether this is a configuration mutant (no patch, no build).
    pub fn is_config(&self) -> bool {
        !self.params.is_empty()
    }

    /// Marks this mutant as the catalogue's bug `name`; a mutant the
    /// catalogue names twice (ME-4 and ME-8 are one edit) is `ME-4=ME-8`.
    pub fn tag_catalogue(&mut self, name: &str) {
        if self
            .catalogue_name()
            .is_some_and(|n| n.split('=').any(|n| n == name))
        {
            return;
        }
        if self.catalogue_name().is_some() {
            self.class.push('=');
        } else {
            self.class.push_str(CATALOGUE_TAG);
        }
        self.class.push_str(name);
    }

    /// A class written before two names of one edit were joined
    /// (`+catalogue:ME-4+catalogue:ME-8`), in today's form (`ME-4=ME-8`).
    pub(crate) fn join_catalogue_names(&mut self) {
        if let Some((head, names)) = self.class.split_once(CATALOGUE_TAG) {
            if names.contains(CATALOGUE_TAG) {
                self.class = format!("{head}{CATALOGUE_TAG}{}", names.replace(CATALOGUE_TAG, "="));
            }
        }
    }

    /// The catalogue bug this mutant is, if it is one (names of one edit
    /// joined by `=`).
    pub fn catalogue_name(&self) -> Option<&str> {
        self.class.split_once(CATALOGUE_TAG).map(|(_, name)| name)
    }
}

pub mod base_edits;
pub mod catalogue;
pub mod listing;
pub mod ops;
pub mod patch;
pub mod single;
pub mod slicc;

pub use ops::{generate, Options};

use std::fmt;

/// Why mutants could not be generated.
#[derive(Debug)]
pub enum Error {
    /// A protocol file that cannot be found, read or parsed (syntax errors
    /// carry `file:line:col`).
    Load(slicc::LoadError),
    /// A catalogue entry that names no site of the parsed files.
    Catalogue(String),
    /// An edit that broke its own invariants (line count, unique ids): a bug.
    Internal(String),
}

impl fmt::Display for Error {
    /// The load error, or the message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Load(e) => e.fmt(f),
            Error::Catalogue(m) | Error::Internal(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

impl From<slicc::LoadError> for Error {
    /// A load error as a generation error.
    fn from(e: slicc::LoadError) -> Self {
        Error::Load(e)
    }
}

/// The SHA-256 of `bytes` in lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// A mutant's id: the first 12 hex digits of its descriptor's SHA-256.
pub fn mutant_id(descriptor: &str) -> String {
    sha256_hex(descriptor.as_bytes())[..12].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two catalogue names of one edit (ME-4 and ME-8) make one name
    /// `ME-4=ME-8`; naming a mutant twice the same changes nothing.
    #[test]
    fn catalogue_names_of_one_edit_are_joined() {
        let mut m = Mutant::config("system.cpu[:].needsTSO=False").unwrap();
        assert_eq!(m.catalogue_name(), None);
        m.tag_catalogue("ME-4");
        m.tag_catalogue("ME-8");
        m.tag_catalogue("ME-4");
        assert_eq!(m.catalogue_name(), Some("ME-4=ME-8"));
        assert_eq!(m.class, "config+catalogue:ME-4=ME-8");
    }
}
