//! One mutant at a time in the user's own tree (docs/design/campaigns.md
//! §5): a mutant found by its id, a unique prefix of it or its catalogue
//! name (`mutate show`), applied in place and reverted (`mutate apply`).
//! An applied mutant is recorded at the root in [`RECORD`]: what `mutate
//! show` prints plus the mutated file's SHA-256, so `--revert` knows the
//! patch (the mutated tree no longer has the mutant's site) and refuses a
//! file edited since; the record is a patch `git apply -R` takes too.

use std::fmt;
use std::path::{Path, PathBuf};

use super::catalogue::{self, ENTRIES};
use super::ops;
use super::patch::{self, PatchError};
use super::slicc::Protocol;
use super::{mutant_id, sha256_hex, Error, Mutant};

/// The fewest hex digits of an id taken as its prefix.
pub const MIN_PREFIX: usize = 4;
/// The record of the applied mutant, at the root (the gem5 root, or the
/// protocol directory when the files are not in a gem5 tree).
pub const RECORD: &str = ".memconform-mutant.diff";
/// What a line-deleting operator puts before a deleted line.
const MARK: &str = "// [mutant] ";

/// A mutant as a user names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// An id or a prefix of one: 4 to 12 hex digits, lowercase.
    Id(String),
    /// A catalogue name (`ME-8`), uppercase.
    Name(String),
}

impl Query {
    /// Reads `s`: 4 to 12 hex digits, or a catalogue name (letters, `-`,
    /// digits: `ME-8`, `mi-5`, `CF-1`).
    pub fn parse(s: &str) -> Result<Query, String> {
        let t = s.trim();
        if !t.is_empty() && t.chars().all(|c| c.is_ascii_hexdigit()) {
            if t.len() < MIN_PREFIX {
                return Err(format!(
                    "`{t}` is too short: give at least {MIN_PREFIX} hex digits of the id"
                ));
            }
            if t.len() > 12 {
                return Err(format!("`{t}` is not a mutant id: ids have 12 hex digits"));
            }
            return Ok(Query::Id(t.to_ascii_lowercase()));
        }
        if let Some((letters, number)) = t.split_once('-') {
            if !letters.is_empty()
                && letters.chars().all(|c| c.is_ascii_alphabetic())
                && !number.is_empty()
                && number.chars().all(|c| c.is_ascii_digit())
            {
                return Ok(Query::Name(t.to_ascii_uppercase()));
            }
        }
        Err(format!(
            "`{t}` is neither a mutant id (12 hex digits, as `mutate list` prints them, or a \
             unique prefix of {MIN_PREFIX} or more) nor a catalogue name (ME-8, MI-5, CF-1)"
        ))
    }

    /// Whether this names mutant `id`, whose catalogue names are `names`.
    pub fn matches(&self, id: &str, names: &[String]) -> bool {
        match self {
            Query::Id(prefix) => id.starts_with(prefix.as_str()),
            Query::Name(n) => names.iter().any(|m| m.eq_ignore_ascii_case(n)),
        }
    }
}

impl fmt::Display for Query {
    /// The prefix or the name, as given (case aside).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Query::Id(s) | Query::Name(s) => f.write_str(s),
        }
    }
}

/// A mutant found, with the catalogue's names for its edit (`ME-4` and
/// `ME-8` are one edit).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub mutant: Mutant,
    pub names: Vec<String>,
}

/// Why a query found no single mutant.
#[derive(Debug)]
pub enum LookupError {
    /// The protocol's catalogue entries do not resolve.
    Generate(Error),
    /// No id starts with the prefix.
    UnknownId {
        prefix: String,
        protocol: String,
        /// `file:line` of each `// [mutant]` line in the files: a tree
        /// that already carries a mutant has other ids.
        marked: Vec<String>,
    },
    /// Several ids start with the prefix.
    Ambiguous {
        prefix: String,
        matches: Vec<Mutant>,
    },
    /// No catalogue entry of this protocol has the name.
    UnknownName {
        name: String,
        protocol: String,
        /// The protocol whose catalogue has it, if another's does.
        elsewhere: Option<&'static str>,
        /// The names this protocol's catalogue has.
        known: Vec<String>,
    },
}

impl fmt::Display for LookupError {
    /// What was not found and what to do, with the candidates when several.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LookupError::Generate(e) => e.fmt(f),
            LookupError::UnknownId {
                prefix,
                protocol,
                marked,
            } => {
                write!(
                    f,
                    "no mutant of {protocol} has an id starting with {prefix} (`mutate list \
                     --classes all --dma` lists every id, `--catalogue` the named bugs)"
                )?;
                if !marked.is_empty() {
                    write!(
                        f,
                        "; ids come from the files as they are, and {} has a `{}` line: the \
                         tree already carries a mutant (`git diff` shows it)",
                        marked[0],
                        MARK.trim_end()
                    )?;
                }
                Ok(())
            }
            LookupError::Ambiguous { prefix, matches } => {
                write!(
                    f,
                    "{prefix} is the start of {} ids; give more digits:",
                    matches.len()
                )?;
                for m in matches {
                    write!(f, "\n  {}", summary(m))?;
                }
                Ok(())
            }
            LookupError::UnknownName {
                name,
                protocol,
                elsewhere,
                known,
            } => {
                match elsewhere {
                    Some(other) => write!(
                        f,
                        "{name} is a bug of {other}'s catalogue, not of {protocol}'s"
                    )?,
                    None => write!(f, "{protocol}'s catalogue has no {name}")?,
                }
                write!(f, " (its bugs: {}", known.join(", "))?;
                f.write_str("; `mutate list --catalogue` lists them)")
            }
        }
    }
}

impl std::error::Error for LookupError {}

/// A mutant in one line, as `mutate list` prints it: id, operator, class,
/// file:line, descriptor.
fn summary(m: &Mutant) -> String {
    if m.is_config() {
        return format!("{}  {:<11} {:<15} {}", m.id, m.op, m.class, m.descriptor);
    }
    let file = m.file.rsplit('/').next().unwrap_or(&m.file);
    format!(
        "{}  {:<11} {:<15} {}:{}  {}",
        m.id, m.op, m.class, file, m.line, m.descriptor
    )
}

/// The names of the catalogue bugs of `protocol` whose edit has descriptor
/// `descriptor`.
fn catalogue_names(protocol: &str, descriptor: &str) -> Vec<String> {
    ENTRIES
        .iter()
        .filter(|e| e.protocol == protocol && catalogue::descriptor(e) == descriptor)
        .map(|e| e.name.to_string())
        .collect()
}

/// The symptom the catalogue gives bug `name`.
pub fn symptom(name: &str) -> Option<&'static str> {
    ENTRIES
        .iter()
        .find(|e| e.name == name)
        .map(|e| e.symptom)
        .or_else(|| {
            catalogue::CONFIG_ENTRIES
                .iter()
                .find(|(n, _, _)| *n == name)
                .map(|(_, _, s)| *s)
        })
}

/// `file:line` of every `// [mutant]` line of the protocol's files.
pub fn marked_lines(p: &Protocol) -> Vec<String> {
    let mut out = Vec::new();
    for f in &p.files {
        for (i, line) in f.text.lines().enumerate() {
            if line.trim_start().starts_with(MARK) {
                out.push(format!("{}:{}", f.rel_path, i + 1));
            }
        }
    }
    out
}

/// Finds the mutant `query` names among every mutant of `p` (all classes,
/// DMA controllers included: any id `mutate list` prints) and the
/// catalogue's configuration bugs; materializes only the matches.
pub fn lookup(p: &Protocol, query: &Query) -> Result<Found, LookupError> {
    let configs = catalogue::config_catalogue(&p.name);
    match query {
        Query::Name(name) => {
            if let Some((n, m)) = configs.into_iter().find(|(n, _)| n == name) {
                return Ok(Found {
                    mutant: m,
                    names: vec![n],
                });
            }
            let Some(entry) = ENTRIES
                .iter()
                .find(|e| e.protocol == p.name && e.name == name)
            else {
                let mut known: Vec<String> = ENTRIES
                    .iter()
                    .filter(|e| e.protocol == p.name)
                    .map(|e| e.name.to_string())
                    .collect();
                known.extend(catalogue::CONFIG_ENTRIES.iter().map(|e| e.0.to_string()));
                return Err(LookupError::UnknownName {
                    name: name.clone(),
                    protocol: p.name.clone(),
                    elsewhere: ENTRIES.iter().find(|e| e.name == name).map(|e| e.protocol),
                    known,
                });
            };
            let d = catalogue::descriptor(entry);
            let all = ops::candidates(p, true);
            let Some(c) = all.iter().find(|c| c.descriptor == d) else {
                let mut why = format!(
                    "catalogue entry {name} does not resolve in {}: no site {d}",
                    p.name
                );
                if let Some(at) = marked_lines(p).first() {
                    why.push_str(&format!(
                        " ({at} has a `{}` line: the tree already carries a mutant)",
                        MARK.trim_end()
                    ));
                }
                return Err(LookupError::Generate(Error::Catalogue(why)));
            };
            let m = ops::materialize(p, c).map_err(LookupError::Generate)?;
            let names = catalogue_names(&p.name, &m.descriptor);
            Ok(Found { mutant: m, names })
        }
        Query::Id(prefix) => {
            let all = ops::candidates(p, true);
            let mut matches = Vec::new();
            for c in &all {
                if mutant_id(&c.descriptor).starts_with(prefix.as_str()) {
                    matches.push(ops::materialize(p, c).map_err(LookupError::Generate)?);
                }
            }
            let mut names_of_config = Vec::new();
            for (n, m) in configs {
                if m.id.starts_with(prefix.as_str()) {
                    names_of_config.push((m.id.clone(), n));
                    matches.push(m);
                }
            }
            matches.sort_by(|a, b| a.id.cmp(&b.id));
            matches.dedup_by(|a, b| a.id == b.id);
            match matches.len() {
                0 => Err(LookupError::UnknownId {
                    prefix: prefix.clone(),
                    protocol: p.name.clone(),
                    marked: marked_lines(p),
                }),
                1 => {
                    let m = matches.remove(0);
                    let names = if m.is_config() {
                        names_of_config
                            .into_iter()
                            .filter(|(id, _)| *id == m.id)
                            .map(|(_, n)| n)
                            .collect()
                    } else {
                        catalogue_names(&p.name, &m.descriptor)
                    };
                    Ok(Found { mutant: m, names })
                }
                _ => Err(LookupError::Ambiguous {
                    prefix: prefix.clone(),
                    matches,
                }),
            }
        }
    }
}

/// The `#` lines `mutate show` prints before a mutant's patch: id,
/// catalogue names and their symptoms, operator, class, file:line and
/// site, descriptor.
pub fn header(f: &Found) -> String {
    let m = &f.mutant;
    let mut out = format!("# mutant:     {}\n", m.id);
    if !f.names.is_empty() {
        out.push_str(&format!("# catalogue:  {}\n", f.names.join("=")));
        for n in &f.names {
            if let Some(s) = symptom(n) {
                out.push_str(&format!("# {:<11} {s}\n", format!("{n}:")));
            }
        }
    }
    out.push_str(&format!(
        "# operator:   {}\n# class:      {}\n",
        m.op, m.class
    ));
    if m.is_config() {
        out.push_str(&format!("# site:       {}\n", m.site));
    } else {
        out.push_str(&format!(
            "# at:         {}:{}  {}\n",
            m.file, m.line, m.site
        ));
    }
    out.push_str(&format!("# descriptor: {}\n", m.descriptor));
    out
}

/// What `mutate show` prints: the header, then the mutant's patch (its
/// preamble and unified diff, which `git apply` and `patch -p1` take at
/// the root), or for a configuration mutant the gem5 options it stands for.
pub fn show(f: &Found) -> String {
    let mut out = header(f);
    let m = &f.mutant;
    if m.is_config() {
        out.push_str("# no patch: a configuration mutant changes no file; give gem5's se.py\n");
        for p in &m.params {
            out.push_str(&format!("#   --param '{p}'\n"));
        }
        out.push_str("# (no rebuild)\n");
    } else {
        out.push_str(&m.patch);
    }
    out
}

/// A mutant applied in place, as its record says: which mutant, in which
/// file (relative to the root), the SHA-256 of the file before and after,
/// and the patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    pub id: String,
    pub names: Vec<String>,
    pub file: String,
    pub base_sha256: String,
    pub mutated_sha256: String,
    /// The mutant's patch: preamble and unified diff.
    pub patch: String,
}

impl Applied {
    /// The mutant's id and, if any, its catalogue names (`2c440e45b307 (ME-4=ME-8)`).
    pub fn named(&self) -> String {
        if self.names.is_empty() {
            self.id.clone()
        } else {
            format!("{} ({})", self.id, self.names.join("="))
        }
    }
}

/// Where the file a record names stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileState {
    /// The mutated text: the mutant is applied.
    Mutated,
    /// The original text: reverted some other way (`git checkout`).
    Original,
    /// Neither: edited since (the SHA-256 found).
    Edited(String),
    /// The file cannot be read.
    Unreadable(String),
}

/// Why a mutant was not applied or reverted.
#[derive(Debug)]
pub enum ApplyError {
    /// A file that cannot be read or written, or a patch that does not apply.
    Patch(PatchError),
    /// The record cannot be read as one.
    BadRecord { path: PathBuf, message: String },
    /// The tree carries a mutant `mutate apply` applied (its file is the
    /// mutated text).
    Carries(Box<Applied>),
    /// The record's file is neither the mutated nor the original text.
    Edited {
        applied: Box<Applied>,
        state: FileState,
    },
    /// `--revert` with no record at the root.
    NoRecord {
        /// `file:line` of each `// [mutant]` line of the protocol's files.
        marked: Vec<String>,
    },
    /// `--revert ID` while the record names another mutant.
    Other { query: Query, applied: Box<Applied> },
    /// A configuration mutant: no file to change.
    Config(Box<Mutant>),
}

impl fmt::Display for ApplyError {
    /// What is in the way, naming files and mutants (the command line adds
    /// the commands to run).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApplyError::Patch(e) => e.fmt(f),
            ApplyError::BadRecord { path, message } => write!(
                f,
                "{}: not a record of an applied mutant: {message}",
                memconform_report::shown_path(path)
            ),
            ApplyError::Carries(a) => write!(
                f,
                "the tree already carries mutant {} in {} (applied by `mutate apply`, recorded \
                 in {RECORD}); one mutant at a time",
                a.named(),
                a.file
            ),
            ApplyError::Edited { applied, state } => {
                write!(
                    f,
                    "{RECORD} records mutant {} in {}, but ",
                    applied.named(),
                    applied.file
                )?;
                match state {
                    FileState::Unreadable(e) => write!(f, "the file cannot be read ({e})")?,
                    FileState::Edited(sha) => write!(
                        f,
                        "the file is neither the mutated text (sha256 {}) nor the original \
                         (sha256 {}): edited since (sha256 {sha}); nothing written",
                        applied.mutated_sha256, applied.base_sha256
                    )?,
                    FileState::Mutated | FileState::Original => {
                        f.write_str("the file is as recorded")?
                    }
                }
                Ok(())
            }
            ApplyError::NoRecord { marked } => {
                write!(f, "no mutant applied by `mutate apply` here (no {RECORD})")?;
                if let Some(at) = marked.first() {
                    write!(
                        f,
                        "; {at} has a `{}` line: a mutant applied by hand reverts with `git \
                         apply -R` (or `patch -R -p1`) and its patch, or `git checkout -- FILE`",
                        MARK.trim_end()
                    )?;
                }
                Ok(())
            }
            ApplyError::Other { query, applied } => write!(
                f,
                "the tree carries mutant {} in {}, not {query}",
                applied.named(),
                applied.file
            ),
            ApplyError::Config(m) => write!(
                f,
                "{} is a configuration mutant: no file to change; run gem5's se.py with {} \
                 (no rebuild)",
                m.id,
                m.params
                    .iter()
                    .map(|p| format!("--param '{p}'"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
        }
    }
}

impl std::error::Error for ApplyError {}

impl From<PatchError> for ApplyError {
    /// A patch error as an apply error.
    fn from(e: PatchError) -> Self {
        ApplyError::Patch(e)
    }
}

/// An I/O error on `path` as an apply error.
fn io_error(path: &Path, e: std::io::Error) -> ApplyError {
    ApplyError::Patch(PatchError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// The text of the record of `f` applied, the mutated file's SHA-256
/// being `mutated_sha256`: `mutate show`'s text with that SHA-256 added.
pub fn record_text(f: &Found, mutated_sha256: &str) -> String {
    let mut out = String::from(
        "# recorded by `memconform mutate apply`: the mutant applied in this tree; \
         `mutate apply --revert` reads it\n",
    );
    out.push_str(&header(f));
    out.push_str(&format!("# mutated-sha256: {mutated_sha256}\n"));
    out.push_str(&f.mutant.patch);
    out
}

/// Reads a record's text (see [`record_text`]).
pub fn parse_record(text: &str) -> Result<Applied, String> {
    let field = |prefix: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .map(|v| v.trim().to_string())
    };
    let need = |prefix: &str| field(prefix).ok_or_else(|| format!("no `{}` line", prefix.trim()));
    let id = need("memconform-mutant:")?;
    let base_sha256 = need("base-sha256:")?;
    let mutated_sha256 = need("# mutated-sha256:")?;
    let file = need("--- a/")?;
    // a path inside the root, as the generator writes them
    if Path::new(&file)
        .components()
        .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return Err(format!("`{file}` is not a path inside the tree"));
    }
    let names = field("# catalogue:")
        .map(|n| n.split('=').map(str::to_string).collect())
        .unwrap_or_default();
    let start = text
        .find("memconform-mutant:")
        .ok_or("no `memconform-mutant:` line")?;
    Ok(Applied {
        id,
        names,
        file,
        base_sha256,
        mutated_sha256,
        patch: text[start..].to_string(),
    })
}

/// The record at `root`, if there is one.
pub fn read_record(root: &Path) -> Result<Option<Applied>, ApplyError> {
    let path = root.join(RECORD);
    match std::fs::read_to_string(&path) {
        Ok(text) => parse_record(&text)
            .map(Some)
            .map_err(|message| ApplyError::BadRecord { path, message }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_error(&path, e)),
    }
}

/// Where the file `a` names stands at `root`.
pub fn file_state(root: &Path, a: &Applied) -> FileState {
    match std::fs::read(root.join(&a.file)) {
        Err(e) => FileState::Unreadable(e.to_string()),
        Ok(bytes) => {
            let sha = sha256_hex(&bytes);
            if sha == a.mutated_sha256 {
                FileState::Mutated
            } else if sha == a.base_sha256 {
                FileState::Original
            } else {
                FileState::Edited(sha)
            }
        }
    }
}

/// Removes the record at `root`.
fn remove_record(root: &Path) -> Result<(), ApplyError> {
    let path = root.join(RECORD);
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io_error(&path, e)),
        _ => Ok(()),
    }
}

/// Checks that no mutant is applied at `root` before another is: refuses
/// a recorded mutant still in its file (or a file edited since); a record
/// whose file is the original again (reverted by hand) is removed and
/// returned.
pub fn check_clear(root: &Path) -> Result<Option<Applied>, ApplyError> {
    let Some(a) = read_record(root)? else {
        return Ok(None);
    };
    match file_state(root, &a) {
        FileState::Mutated => Err(ApplyError::Carries(Box::new(a))),
        FileState::Original => {
            remove_record(root)?;
            Ok(Some(a))
        }
        state => Err(ApplyError::Edited {
            applied: Box::new(a),
            state,
        }),
    }
}

/// Applies the mutant `f` in place at `root` (the root its patch is
/// relative to): refuses while another is applied ([`check_clear`]) and a
/// file that is not the one the mutant was made from; writes the record,
/// then the file, each whole (a temporary file renamed over it, the
/// file's permissions kept).
pub fn apply_in_place(root: &Path, f: &Found) -> Result<Applied, ApplyError> {
    let m = &f.mutant;
    if m.is_config() {
        return Err(ApplyError::Config(Box::new(m.clone())));
    }
    check_clear(root)?;
    let path = root.join(&m.file);
    let original = std::fs::read_to_string(&path).map_err(|e| io_error(&path, e))?;
    let mutated = patch::mutated_text(&original, m)?;
    let mutated_sha256 = sha256_hex(mutated.as_bytes());
    let record = root.join(RECORD);
    memconform_report::write_atomic(&record, record_text(f, &mutated_sha256).as_bytes())
        .map_err(|e| io_error(&record, e))?;
    if let Err(e) = memconform_report::write_atomic(&path, mutated.as_bytes()) {
        let _ = std::fs::remove_file(&record);
        return Err(io_error(&path, e));
    }
    Ok(Applied {
        id: m.id.clone(),
        names: f.names.clone(),
        file: m.file.clone(),
        base_sha256: m.base_sha256.clone(),
        mutated_sha256,
        patch: m.patch.clone(),
    })
}

/// How a revert ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reverted {
    /// The file was the mutated text and is the original again.
    Restored(Applied),
    /// The file was already the original (reverted by hand): only the
    /// record was removed.
    AlreadyOriginal(Applied),
}

/// Reverts the mutant recorded at `root` (when `query` is given, only if it
/// names it): the file must be the mutated text, and becomes the original
/// exactly (checked by its SHA-256); the record is removed. `marked` gives
/// the `// [mutant]` lines to cite when there is no record.
pub fn revert_in_place(
    root: &Path,
    query: Option<&Query>,
    marked: impl FnOnce() -> Vec<String>,
) -> Result<Reverted, ApplyError> {
    let Some(a) = read_record(root)? else {
        return Err(ApplyError::NoRecord { marked: marked() });
    };
    if let Some(q) = query {
        if !q.matches(&a.id, &a.names) {
            return Err(ApplyError::Other {
                query: q.clone(),
                applied: Box::new(a),
            });
        }
    }
    match file_state(root, &a) {
        FileState::Mutated => {}
        FileState::Original => {
            remove_record(root)?;
            return Ok(Reverted::AlreadyOriginal(a));
        }
        state => {
            return Err(ApplyError::Edited {
                applied: Box::new(a),
                state,
            })
        }
    }
    let path = root.join(&a.file);
    let mutated = std::fs::read_to_string(&path).map_err(|e| io_error(&path, e))?;
    let original = patch::unapply_diff(&a.file, &mutated, &a.patch)?;
    let found = sha256_hex(original.as_bytes());
    if found != a.base_sha256 {
        return Err(ApplyError::Patch(PatchError::BaseMismatch {
            file: a.file.clone(),
            expected: a.base_sha256.clone(),
            found,
        }));
    }
    memconform_report::write_atomic(&path, original.as_bytes()).map_err(|e| io_error(&path, e))?;
    remove_record(root)?;
    Ok(Reverted::Restored(a))
}

/// `file:line` of every `// [mutant]` line of the `.sm` files in `dir`
/// (relative to `root`), read without parsing: for a tree whose files may
/// not parse.
pub fn marked_lines_in(root: &Path, dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "sm"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let rel = path.strip_prefix(root).unwrap_or(&path);
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with(MARK) {
                out.push(format!("{}:{}", rel.display(), i + 1));
            }
        }
    }
    out
}

/// The gem5 build directories under `root/build` configured for `protocol`
/// (gem5 v24's Kconfig `gem5.build/config`: `RUBY_PROTOCOL_<NAME>=y`;
/// older gem5's `gem5.build/variables`: `PROTOCOL = '<name>'`), else the
/// `build_opts` files that select it; sorted names.
pub fn build_dirs(root: &Path, protocol: &str) -> (Vec<String>, Vec<String>) {
    let kconfig = format!("RUBY_PROTOCOL_{}=y", protocol.to_ascii_uppercase());
    let selects = |text: &str| {
        text.lines().any(|l| {
            let l: String = l.split_whitespace().collect();
            l == kconfig
                || l == format!("PROTOCOL='{protocol}'")
                || l == format!("PROTOCOL=\"{protocol}\"")
        })
    };
    // the entries of `dir` for which one of `files` (paths under the
    // entry, "" the entry itself) selects the protocol
    let names_where = |dir: &Path, files: &[&str]| {
        let mut out: Vec<String> = std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| {
                files.iter().any(|f| {
                    let path = if f.is_empty() {
                        e.path()
                    } else {
                        e.path().join(f)
                    };
                    std::fs::read_to_string(path).is_ok_and(|t| selects(&t))
                })
            })
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        out.sort();
        out
    };
    let built = names_where(
        &root.join("build"),
        &["gem5.build/config", "gem5.build/variables"],
    );
    let opts = names_where(&root.join("build_opts"), &[""]);
    (built, opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ids and prefixes are lowercased hex of 4 to 12 digits; names are
    /// uppercased; anything else is refused with the forms it takes.
    #[test]
    fn queries_are_ids_prefixes_or_catalogue_names() {
        assert_eq!(
            Query::parse("2C440e45b307"),
            Ok(Query::Id("2c440e45b307".into()))
        );
        assert_eq!(Query::parse("2c44"), Ok(Query::Id("2c44".into())));
        assert!(Query::parse("2c4").unwrap_err().contains("at least 4"));
        assert!(Query::parse("2c440e45b3071")
            .unwrap_err()
            .contains("12 hex digits"));
        assert_eq!(Query::parse("me-8"), Ok(Query::Name("ME-8".into())));
        assert_eq!(Query::parse(" CF-1 "), Ok(Query::Name("CF-1".into())));
        for bad in ["", "xyz", "ME-", "-8", "ME-8a", "2c44 0e"] {
            assert!(Query::parse(bad).is_err(), "{bad}");
        }
        let names = vec!["ME-4".to_string(), "ME-8".to_string()];
        assert!(Query::Name("ME-8".into()).matches("2c440e45b307", &names));
        assert!(Query::Id("2c44".into()).matches("2c440e45b307", &[]));
        assert!(!Query::Id("2c45".into()).matches("2c440e45b307", &names));
    }

    /// A record reads back as written: id, names, file, both SHA-256s and
    /// the patch from its preamble on.
    #[test]
    fn a_record_reads_back() {
        let m = Mutant {
            id: "2c440e45b307".into(),
            descriptor: "X.sm::transition(A,E,B)::a::TDA".into(),
            op: "TDA".into(),
            class: "tier1".into(),
            file: "src/mem/ruby/protocol/X.sm".into(),
            line: 3,
            site: "transition(A, E, B)".into(),
            base_sha256: "b".repeat(64),
            patch: "memconform-mutant: 2c440e45b307\nsite: X\nbase-sha256: bbbb\n--- a/src/mem/ruby/protocol/X.sm\n+++ b/src/mem/ruby/protocol/X.sm\n@@ -1,1 +1,1 @@\n-a;\n+// [mutant] a;\n".into(),
            fires: None,
            params: Vec::new(),
        };
        let f = Found {
            mutant: m.clone(),
            names: vec!["ME-4".into(), "ME-8".into()],
        };
        let a = parse_record(&record_text(&f, &"c".repeat(64))).unwrap();
        assert_eq!(a.id, m.id);
        assert_eq!(a.names, f.names);
        assert_eq!(a.file, m.file);
        assert_eq!(a.base_sha256, "bbbb");
        assert_eq!(a.mutated_sha256, "c".repeat(64));
        assert_eq!(a.patch, m.patch);
        assert!(parse_record("# nothing\n").is_err());
        let outside = record_text(&f, "c").replace("a/src/mem", "a/../src/mem");
        assert!(parse_record(&outside)
            .unwrap_err()
            .contains("not a path inside"));
    }
}
