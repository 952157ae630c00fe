//! The commands that reproduce a check or a shrink, as a user would type them.

use std::path::Path;

use memconform_core::models::Model;

/// The command that picks and shrinks the same violation: `memconform
/// shrink INPUT --model M` (with `--real-time` for a run's real-time view,
/// `--index I` for a history past the first).
pub fn shrink_command(input: &Path, index: usize, model: Model) -> String {
    let mut cmd = format!(
        "memconform shrink {} --model {model}",
        shell_word(&crate::path_text(input))
    );
    if input.is_dir() && index == 1 {
        cmd.push_str(" --real-time --index 1");
    } else if index > 0 {
        cmd.push_str(&format!(" --index {index}"));
    }
    cmd
}

/// `s` as one shell word: as it is when it is plain, else single-quoted
/// ([`shell_quote`]). The shell quoting of every command memconform prints
/// or writes.
pub fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:=@%".contains(c));
    if plain {
        s.to_string()
    } else {
        shell_quote(s)
    }
}

/// `s` single-quoted for a POSIX shell, each `'` written `'\''`.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The command that checks the same history again: `memconform check
/// INPUT --models M,...` (with `--real-time` for a run's real-time view).
pub fn check_command(input: &Path, index: usize, models: &[Model]) -> String {
    let names: Vec<&str> = models.iter().map(|m| m.name()).collect();
    let mut cmd = format!(
        "memconform check {} --models {}",
        shell_word(&crate::path_text(input)),
        names.join(",")
    );
    if input.is_dir() && index == 1 {
        cmd.push_str(" --real-time");
    }
    cmd
}
