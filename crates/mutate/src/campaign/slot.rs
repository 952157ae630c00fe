//! Slots, the lab (docs/design/campaigns.md §6, slots): private copies of
//! the user's gem5 tree, their build directories and the baseline's binary.

use super::*;

/// A private copy of the user's gem5 tree.
pub(super) struct Slot {
    pub(super) root: PathBuf,
    /// Where the slot's builds and runs see it: at the user's tree's own
    /// path, in a private mount namespace of each command's own (gem5
    /// embeds absolute paths in its build: at the user's path a seeded
    /// build stays valid and the slot's first build is incremental), with
    /// the `unshare` options that made one here; `None`: at its own path.
    pub(super) at_user_path: Option<(PathBuf, &'static str)>,
}

impl Slot {
    /// Clones the user's tree at the base commit (sharing its objects),
    /// applies its uncommitted changes and seeds the build directory; an
    /// existing slot is reset to that state.
    pub(super) fn prepare(c: &Campaign, root: PathBuf, o: &RunOptions<'_>) -> Result<Slot, Error> {
        let s = &c.settings;
        let t0 = Instant::now();
        if !root.join(".git").exists() {
            (o.progress)(&format!(
                "slot {}: cloning {}{}",
                shown(&root),
                shown(&s.gem5_root),
                match &s.seed_build_dir {
                    Some(b) => format!(" and copying its {}", b),
                    None => String::new(),
                }
            ));
            if let Some(parent) = root.parent() {
                fs::create_dir_all(parent).map_err(|e| io_err(parent, e))?;
            }
            let o = Command::new("git")
                .args(["clone", "--quiet", "--shared", "--no-checkout"])
                .arg(&s.gem5_root)
                .arg(&root)
                .output()
                .map_err(|e| err(format!("cannot run git: {e}")))?;
            if !o.status.success() {
                return Err(err(format!(
                    "cannot copy {} into {}: {}",
                    shown(&s.gem5_root),
                    shown(&root),
                    String::from_utf8_lossy(&o.stderr).trim()
                )));
            }
            if let Some(b) = &s.seed_build_dir {
                let from = s.gem5_root.join(b);
                if from.is_dir() {
                    let to = root.join(b);
                    fs::create_dir_all(to.parent().expect("a build dir has a parent"))
                        .map_err(|e| io_err(&to, e))?;
                    let ok = Command::new("cp")
                        .args(["-a", "--reflink=auto"])
                        .arg(&from)
                        .arg(&to)
                        .status()
                        .map_err(|e| err(format!("cannot run cp: {e}")))?
                        .success();
                    if !ok {
                        return Err(err(format!("cannot copy {}", shown(&from))));
                    }
                }
            }
        }
        let mut slot = Slot {
            root,
            at_user_path: None,
        };
        slot.reset(c)?;
        slot.at_user_path = match slot.probe_namespace(c) {
            Ok(found) => Some(found),
            Err(why) => {
                (o.progress)(&format!(
                    "slot {}: builds run at the slot's own path ({why}); gem5 embeds absolute \
                     paths, so its first build recompiles much (an hour on 2 cores)",
                    slot.root.display()
                ));
                None
            }
        };
        // once per slot (a marker, so that an interrupted preparation redoes it)
        let adopted = slot.root.join(".git/memconform-mtimes");
        if !adopted.exists() {
            adopt_mtimes(&slot.root, &s.gem5_root)?;
            fs::write(&adopted, b"").map_err(|e| io_err(&adopted, e))?;
            (o.progress)(&format!(
                "slot {}: ready in {:.0} s",
                shown(&slot.root),
                t0.elapsed().as_secs_f64()
            ));
        }
        Ok(slot)
    }

    /// Whether this machine lets the slot's commands see it at the user's
    /// tree's path (a private mount namespace with the slot bound there:
    /// root's `unshare -m`, else a user namespace's `unshare -Urm`); the
    /// user's tree is hidden from those commands only, never written.
    /// Not when the campaign lives inside the user's tree (the binding
    /// would hide it).
    pub(super) fn probe_namespace(&self, c: &Campaign) -> Result<(PathBuf, &'static str), String> {
        let user = c
            .settings
            .gem5_root
            .canonicalize()
            .map_err(|e| format!("{}: {e}", c.settings.gem5_root.display()))?;
        let slot = self.root.canonicalize().map_err(|e| e.to_string())?;
        let camp = c.dir.canonicalize().map_err(|e| e.to_string())?;
        if camp.starts_with(&user) || slot.starts_with(&user) {
            return Err("the campaign is inside the gem5 tree".into());
        }
        let marker = self.root.join(".git/memconform-slot");
        fs::write(&marker, slot.to_string_lossy().as_bytes()).map_err(|e| e.to_string())?;
        let check = format!(
            "mount --bind {} {} && cmp -s {} {}",
            shell_word(&slot.to_string_lossy()),
            shell_word(&user.to_string_lossy()),
            shell_word(&marker.to_string_lossy()),
            shell_word(&user.join(".git/memconform-slot").to_string_lossy()),
        );
        let mut tried = Vec::new();
        for opts in ["-m", "-Urm"] {
            let ok = Command::new("unshare")
                .args([opts, "--propagation", "private", "--", "sh", "-c", &check])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            match ok {
                Ok(st) if st.success() => return Ok((user, opts)),
                Ok(st) => tried.push(format!("unshare {opts}: {st}")),
                Err(e) => tried.push(format!("unshare {opts}: {e}")),
            }
        }
        Err(format!("no private mount namespace: {}", tried.join("; ")))
    }

    /// The path the slot's commands see it at.
    pub(super) fn seen_root(&self) -> Result<PathBuf, Error> {
        match &self.at_user_path {
            Some((user, _)) => Ok(user.clone()),
            None => self.root.canonicalize().map_err(|e| io_err(&self.root, e)),
        }
    }

    /// `command` as the slot runs it: in its mount namespace, from the
    /// user's path, when it has one.
    pub(super) fn command(&self, command: &str) -> String {
        let Some((user, opts)) = &self.at_user_path else {
            return command.to_string();
        };
        let slot = self
            .root
            .canonicalize()
            .unwrap_or_else(|_| self.root.clone());
        let user = shell_word(&user.to_string_lossy());
        let inner = format!(
            "mount --bind {} {user} && cd {user} && exec sh -c {}",
            shell_word(&slot.to_string_lossy()),
            shell_word(command)
        );
        format!(
            "exec unshare {opts} --propagation private -- sh -c {}",
            shell_word(&inner)
        )
    }

    /// Whether a build has succeeded in this slot (its next builds are
    /// incremental).
    pub(super) fn built(&self) -> bool {
        self.root.join(".git/memconform-built").exists()
    }

    /// Records a successful build of `what` (`base`, or a mutant's id).
    pub(super) fn mark_built(&self, what: &str) -> Result<(), Error> {
        let m = self.root.join(".git/memconform-built");
        fs::write(&m, what.as_bytes()).map_err(|e| io_err(&m, e))
    }

    /// A copy of the slot's binary for mutant `id`'s runs while the slot
    /// builds on (inside the slot, so a command run at the user's path sees
    /// it too): its path relative to the slot.
    pub(super) fn keep_binary(&self, c: &Campaign, id: &str) -> Result<PathBuf, Error> {
        let from = self.root.join(&c.settings.gem5);
        let rel = PathBuf::from(format!(".git/memconform-run-{id}.gem5"));
        let to = self.root.join(&rel);
        fs::copy(&from, &to).map_err(|e| io_err(&to, e))?;
        Ok(rel)
    }

    /// Whether the slot's last successful build was of the base itself
    /// (what a configuration mutant runs).
    pub(super) fn built_base(&self) -> bool {
        fs::read(self.root.join(".git/memconform-built")).is_ok_and(|b| b == b"base")
    }

    /// The time limit of the slot's next build: the first one may redo much.
    pub(super) fn build_limit(&self, s: &Settings) -> u64 {
        if self.built() {
            s.build_timeout_s
        } else {
            s.build_timeout_s.max(s.first_build_timeout_s)
        }
    }

    /// Back to the base: the commit, the user's changes, the base edits
    /// (each applied once to a fresh checkout), no mutant.
    pub(super) fn reset(&self, c: &Campaign) -> Result<(), Error> {
        git(
            &self.root,
            &["checkout", "--quiet", "--force", &c.settings.base_commit],
        )?;
        for name in ["base.patch", BASE_EDITS_PATCH] {
            let base = c.dir.join(name);
            if fs::metadata(&base).map(|m| m.len() > 0).unwrap_or(false) {
                let base = base.canonicalize().map_err(|e| io_err(&base, e))?;
                git(
                    &self.root,
                    &["apply", "--whitespace=nowarn", &base.to_string_lossy()],
                )?;
            }
        }
        Ok(())
    }

    /// Applies a mutant's patch after checking its base file.
    pub(super) fn apply(&self, c: &Campaign, m: &Mutant) -> Result<(), String> {
        let file = self.root.join(&m.file);
        let bytes = fs::read(&file).map_err(|e| format!("{}: {e}", shown(&file)))?;
        let sha = sha256_hex(&bytes);
        if sha != m.base_sha256 {
            return Err(format!(
                "{}: the base file differs from the one the mutant was made from (sha256 {sha}, mutant's {})",
                m.file, m.base_sha256
            ));
        }
        let patch = c.dir.join("patches").join(format!("{}.diff", m.id));
        let patch = patch
            .canonicalize()
            .map_err(|e| format!("{}: {e}", shown(&patch)))?;
        git(
            &self.root,
            &["apply", "--whitespace=nowarn", &patch.to_string_lossy()],
        )
        .map(|_| ())
        .map_err(|e| e.0)
    }
}

/// Gives each tracked file of a new slot the modification time of the same
/// file in the user's tree when their bytes are equal. A fresh checkout
/// stamps every file "now", which makes timestamp-based builds redo
/// everything in the seeded build directory: make compares times, and
/// SCons's `MD5-timestamp` decider (gem5's) hashes a source only when its
/// time changed, against a stored hash it never computed for a source whose
/// time never changed, so every object was out of date. With the user's
/// times, the seeded build is exactly as up to date as the user's own.
pub(super) fn adopt_mtimes(slot: &Path, user: &Path) -> Result<(), Error> {
    let listed = git(slot, &["ls-files", "-z"])?;
    for rel in listed.split('\0').filter(|p| !p.is_empty()) {
        let (ours, theirs) = (slot.join(rel), user.join(rel));
        let (Ok(a), Ok(b)) = (fs::symlink_metadata(&ours), fs::symlink_metadata(&theirs)) else {
            continue;
        };
        if !a.is_file() || !b.is_file() || a.len() != b.len() {
            continue;
        }
        let Ok(when) = b.modified() else { continue };
        if fs::read(&ours).ok() != fs::read(&theirs).ok() {
            continue;
        }
        // best effort: a time not set costs a longer first build, not a result
        let _ = File::options()
            .write(true)
            .open(&ours)
            .and_then(|f| f.set_modified(when));
    }
    // the index learns the new times, or the next `git checkout --force`
    // would rewrite every file whose times it no longer knows
    git(slot, &["update-index", "-q", "--refresh"]).map(|_| ())
}

/// Where the baseline's binary is kept: a configuration mutant runs it in
/// a slot whose last build was a SLICC mutant, instead of rebuilding the
/// base there (a slot's first build may recompile for an hour).
pub fn base_binary(c: &Campaign) -> PathBuf {
    c.dir.join("runs").join("baseline").join("gem5.base")
}

/// Makes `path` executable by its owner, group and others.
pub(super) fn set_executable(path: &Path) -> Result<(), Error> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).map_err(|e| io_err(path, e))
}
