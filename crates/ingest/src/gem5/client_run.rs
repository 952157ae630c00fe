//! An SE-mode run of memconform's client: before any verdict, what the
//! run's files say of the program gem5 ran is checked against each other,
//! by the rules [`consistency`](super::consistency) sets for traces:
//!
//! - the client's output (its header: version, threads, rounds, seed,
//!   shape, ...), the workload of `config.ini` (`cmd`: the program and its
//!   arguments, as se.py's `--cmd` and `--options` gave them) and its CPU
//!   count describe one simulation, or the run is an *input error*: a
//!   header other than the one the workload's arguments print, a header of
//!   more threads than the run has CPUs (the client gets a thread only from
//!   a free CPU), several client runs in one output (a gem5 run runs the
//!   client once), or several files of client output that differ
//!   (`client.out` and the client's lines in `simout.txt`), named;
//! - the command line in `simout.txt` (and the run record's arguments):
//!   `-n`, `--cpu-type`, `--cmd` and `--options` other than the
//!   configuration's make every verdict `unknown` (the file is another
//!   run's, as `-n` and `--maxloads` are for a tester run);
//! - how the run ended: a client that printed its end line finished its
//!   program, after which gem5 exits because the last thread context
//!   exited; a panic or a stop by a limit (`simulate() limit reached`, the
//!   max instruction count, a user interrupt) beside it makes every verdict
//!   `unknown`.

use std::path::{Path, PathBuf};

use memconform_parsers::client::{expected_header, header_lines, HeaderLine};
use memconform_parsers::file::FileBytes;

use super::consistency::Findings;
use super::Run;
use crate::load::InputError;

/// The picked client output of a run and the cross-checks of its files.
#[derive(Debug, Clone)]
pub struct ClientRun {
    /// The file holding the client's output.
    pub output: PathBuf,
    /// Disagreements (every verdict `unknown`) and notes.
    pub findings: Findings,
}

impl ClientRun {
    /// The disagreements of `run`'s own files, then of the client's output
    /// with them: each makes every verdict `unknown`.
    pub fn conflicts(&self, run: &Run) -> Vec<String> {
        run.findings
            .conflicts
            .iter()
            .chain(&self.findings.conflicts)
            .cloned()
            .collect()
    }
}

/// The name of a run's file, for messages.
fn name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// The client's lines of `src`: each block from its header to its end line
/// (or the output's end), so that two files holding the same client output
/// among other lines (gem5's banner in `simout.txt`) compare equal.
fn client_lines(src: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in src.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.starts_with(b"# memconform-client ") {
            inside = !line.starts_with(b"# memconform-client end");
            out.push(line);
        } else if inside {
            out.push(line);
        }
    }
    out
}

/// The one client output among a run's files that hold one: the only one,
/// or the first of copies whose client lines are the same (a note says
/// so); else an error naming them.
pub fn pick_output(candidates: &[(PathBuf, Vec<u8>)]) -> Result<(usize, Option<String>), String> {
    match candidates {
        [] => return Err("no client output".into()),
        [_] => return Ok((0, None)),
        _ => {}
    }
    let first = client_lines(&candidates[0].1);
    let names: Vec<String> = candidates.iter().map(|(p, _)| name(p)).collect();
    if candidates[1..]
        .iter()
        .all(|(_, b)| client_lines(b) == first)
    {
        return Ok((
            0,
            Some(format!(
                "{} hold the same client output; {} is read",
                names.join(" and "),
                names[0]
            )),
        ));
    }
    let described: Vec<String> = candidates
        .iter()
        .map(|(p, b)| {
            let headers = header_lines(b);
            let rounds: Vec<&str> = headers.iter().filter_map(|h| h.get("rounds")).collect();
            format!(
                "{} ({} client lines{})",
                name(p),
                client_lines(b).len(),
                if rounds.is_empty() {
                    String::new()
                } else {
                    format!(", rounds={}", rounds.join("+"))
                }
            )
        })
        .collect();
    Err(format!(
        "several client outputs that differ: {}; a gem5 run prints one (its program's output goes to se.py's --output file, or to simout.txt without one), so memconform cannot tell which is this run's (move the others out of the directory)",
        described.join(", ")
    ))
}

/// Shell words of a command line as gem5 prints it (each argument quoted
/// by Python's `shlex.quote`): `'...'`, `"..."` and `\` are undone.
pub fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    word.push(c);
                }
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => {
                            if let Some(n) = chars.next() {
                                if !matches!(n, '"' | '\\' | '$' | '`') {
                                    word.push('\\');
                                }
                                word.push(n);
                            }
                        }
                        _ => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The value of an se.py option on a command line: `--long V`, `--long=V`,
/// `-s V` or `-sV`; the last one given (argparse keeps the last).
fn option<'a>(words: &'a [String], long: &str, short: Option<&str>) -> Option<&'a str> {
    let mut found = None;
    for (i, w) in words.iter().enumerate() {
        let next = || words.get(i + 1).map(String::as_str);
        if w == long || short == Some(w.as_str()) {
            found = next().or(found);
        } else if let Some(v) = w.strip_prefix(long).and_then(|r| r.strip_prefix('=')) {
            found = Some(v);
        } else if let Some(v) = short
            .and_then(|s| w.strip_prefix(s))
            .filter(|v| !v.is_empty() && !v.starts_with('-') && !w.starts_with("--"))
        {
            found = Some(v);
        }
    }
    found
}

/// The kind of core a CPU model or `--cpu-type` names (`O3`, `Minor`,
/// `TimingSimple`, `AtomicSimple`, `Kvm`), whatever its ISA prefix.
fn core_kind(model: &str) -> Option<&'static str> {
    [
        "O3",
        "Minor",
        "TimingSimple",
        "AtomicSimple",
        "NonCachingSimple",
        "Kvm",
    ]
    .into_iter()
    .find(|k| model.contains(&format!("{k}CPU")))
}

/// What a command line's se.py options (`words`) say against the
/// configuration: `-n`, `--cpu-type`, `--cmd` with `--options`; each
/// disagreement in `what`'s words goes to `out`.
fn command_against_config(words: &[String], run: &Run, what: &str, out: &mut Vec<String>) {
    if let Some(n) = option(words, "--num-cpus", Some("-n")) {
        if n.parse::<usize>().ok() != Some(run.cpus.len()) {
            out.push(format!(
                "{what} says -n {n}, config.ini has {} CPUs: {what} is from another run",
                run.cpus.len()
            ));
        }
    }
    if let (Some(t), Some(model)) = (option(words, "--cpu-type", None), run.cpu_type()) {
        if let (Some(a), Some(b)) = (core_kind(t), core_kind(model)) {
            if a != b {
                out.push(format!(
                    "{what} says --cpu-type={t}, config.ini's CPUs are {model}: {what} is from another run"
                ));
            }
        }
    }
    let Some(cmd) = option(words, "--cmd", Some("-c")) else {
        return;
    };
    if cmd.contains(';') {
        return; // several programs: se.py splits them; not compared
    }
    let options = option(words, "--options", Some("-o")).unwrap_or("");
    let given: Vec<&str> = std::iter::once(cmd)
        .chain(options.split_whitespace())
        .collect();
    let workloads = workloads(run);
    if !workloads.is_empty()
        && !workloads
            .iter()
            .any(|w| w.split_whitespace().eq(given.iter().copied()))
    {
        out.push(format!(
            "{what} runs `{}`, config.ini's workload is `{}`: {what} is from another run",
            given.join(" "),
            workloads[0]
        ));
    }
}

/// The distinct workload command lines of the run's CPUs (config.ini's
/// `cmd`), in CPU order.
fn workloads(run: &Run) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for w in run.cpus.iter().filter_map(|c| c.workload.as_deref()) {
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// The fields where `header` differs from what `args` make the client
/// print, as `key=header's (workload: expected)`; `Err` when the client
/// would refuse `args`.
fn header_against_args(header: &HeaderLine, args: &[&str]) -> Result<Vec<String>, String> {
    let (version, fields) = expected_header(args)?;
    let mut differ = Vec::new();
    if header.version != version {
        differ.push(format!(
            "version {} (a {version} command line)",
            header.version
        ));
    }
    let same = |a: &str, b: &str| match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(x), Ok(y)) => x == y,
        _ => a == b,
    };
    for (key, want) in fields {
        match (header.get(key), want) {
            (Some(have), Some(want)) if !same(have, &want) => {
                differ.push(format!("{key}={have} (the workload's: {want})"))
            }
            (None, Some(want)) => differ.push(format!("no {key}= (the workload's: {want})")),
            (Some(have), None) => {
                differ.push(format!("{key}={have} (the workload's: none, the default)"))
            }
            _ => {}
        }
    }
    Ok(differ)
}

/// The cross-checks of an SE run's client output (`output`, its bytes
/// `src`) against the run (see the module): an input error when the
/// files cannot be one simulation, else the disagreements and notes.
pub fn check_client_against_run(
    run: &Run,
    output: &Path,
    src: &[u8],
) -> Result<Findings, InputError> {
    let mut f = Findings::default();
    let file = name(output);
    let error = |pos, msg: String| InputError {
        file: output.to_path_buf(),
        pos,
        msg,
    };
    let headers = header_lines(src);
    if headers.len() > 1 {
        let at: Vec<String> = headers.iter().map(|h| h.pos.line.to_string()).collect();
        return Err(error(
            Some(headers[1].pos),
            format!(
                "a second client run in one gem5 run ({} headers, at lines {}): gem5 runs its program once, so all but one are from other runs",
                headers.len(),
                at.join(", ")
            ),
        ));
    }
    let Some(header) = headers.first() else {
        return Ok(f);
    };
    // the workload's arguments print one header
    let workloads = workloads(run);
    let mut first_error = None;
    let mut matched = workloads.is_empty();
    for w in &workloads {
        let words: Vec<&str> = w.split_whitespace().collect();
        match header_against_args(header, words.get(1..).unwrap_or(&[])) {
            Ok(d) if d.is_empty() => matched = true,
            Ok(d) => {
                first_error.get_or_insert_with(|| {
                    format!(
                        "the client header says {}, but config.ini's workload is `{w}`: {file} is from another run",
                        d.join(", ")
                    )
                });
            }
            Err(why) => {
                first_error.get_or_insert_with(|| {
                    format!(
                        "config.ini's workload `{w}` is no command line memconform's client runs ({why}): it prints no header, so {file} is from another run"
                    )
                });
            }
        }
    }
    if !matched {
        return Err(error(Some(header.pos), first_error.unwrap_or_default()));
    }
    let cpus = run.cpus.len();
    if let Some(t) = header.get("threads").and_then(|t| t.parse::<u64>().ok()) {
        if cpus > 0 && t > cpus as u64 {
            return Err(error(
                Some(header.pos),
                format!(
                    "the client header says threads={t}, but config.ini has {cpus} CPUs, and the client gets a thread only from a free CPU: {file} is from another run"
                ),
            ));
        }
    }
    // the command line and the run record against the configuration
    if let Some(cl) = &run.command_line {
        // gem5's own options come before the script (`-c`, `-d` are gem5's)
        let words = shell_words(cl);
        let script = words
            .iter()
            .position(|w| w.ends_with(".py"))
            .map_or(1, |i| i + 1);
        command_against_config(
            words.get(script..).unwrap_or(&[]),
            run,
            "simout.txt's command line",
            &mut f.conflicts,
        );
    }
    if let Some(args) = record_args(&run.dir) {
        command_against_config(&args, run, "memconform-run.json", &mut f.conflicts);
    }
    // how the run ended
    if header.ended {
        if let Some((line, p)) = &run.status.panic {
            f.conflicts.push(format!(
                "{file} holds the client's end line (the program finished), but {} holds `{}`: one of them is from another run",
                name(p),
                short(line)
            ));
        }
        if let Some((tick, reason, p)) = &run.status.exiting {
            let stopped = [
                "simulate() limit reached",
                "max instruction count",
                "user interrupt",
            ]
            .iter()
            .any(|r| reason.contains(r));
            if stopped {
                f.conflicts.push(format!(
                    "{file} holds the client's end line (the program finished), but {} says gem5 stopped it at tick {tick} because {reason}: one of them is from another run",
                    name(p)
                ));
            }
        }
    }
    Ok(f)
}

/// The `args` of the run record (`memconform-run.json`), if any.
fn record_args(dir: &Path) -> Option<Vec<String>> {
    let bytes = std::fs::read(dir.join("memconform-run.json")).ok()?;
    let v: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    Some(
        v.get("args")?
            .as_array()?
            .iter()
            .filter_map(|w| w.as_str().map(str::to_owned))
            .collect(),
    )
}

/// A line cut for a message.
fn short(line: &str) -> String {
    match line.char_indices().nth(100) {
        Some((cut, _)) => format!("{}...", &line[..cut]),
        None => line.to_owned(),
    }
}

/// The files of a run that hold client output (see
/// [`memconform_parsers::client::looks_like_client`]), with their bytes,
/// in name order.
pub fn candidates(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("config"))
        })
        .collect();
    files.sort();
    files
        .into_iter()
        .filter_map(|p| {
            let b = FileBytes::open(&p).ok()?;
            memconform_parsers::client::looks_like_client(&b).then(|| (p, b.to_vec()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gem5_command_lines_split_as_a_shell_splits_them() {
        // as Python's shlex.quote writes them (gem5's `command line:`)
        assert_eq!(
            shell_words("gem5.opt -d o se.py -n 2 '--options=2 50 2 1 10' --output=client.out"),
            [
                "gem5.opt",
                "-d",
                "o",
                "se.py",
                "-n",
                "2",
                "--options=2 50 2 1 10",
                "--output=client.out"
            ]
        );
        assert_eq!(
            shell_words("a 'it'\"'\"'s' b\\ c \"d\\\"e\""),
            ["a", "it's", "b c", "d\"e"]
        );
        assert_eq!(shell_words("  ''  x "), ["", "x"]);
        let w = shell_words("se.py -n4 --cpu-type X86O3CPU -c client -o '1 2' --num-cpus=8");
        assert_eq!(option(&w, "--num-cpus", Some("-n")), Some("8"));
        assert_eq!(option(&w, "--cpu-type", None), Some("X86O3CPU"));
        assert_eq!(option(&w, "--cmd", Some("-c")), Some("client"));
        assert_eq!(option(&w, "--options", Some("-o")), Some("1 2"));
        assert_eq!(core_kind("X86O3CPU"), core_kind("DerivO3CPU"));
        assert_ne!(core_kind("X86O3CPU"), core_kind("X86TimingSimpleCPU"));
    }

    #[test]
    fn copies_of_one_client_output_are_one_and_others_are_named() {
        let block = "# memconform-client v1 threads=1 ops=1 words=1 seed=1 rounds=1 stride=1 writes=50\n@name a\n@round 0\nt0: W(w0,0x1)\n# memconform-client end histories=1\n";
        let simout = format!("gem5 Simulator System\n{block}Exiting @ tick 5 because exiting with last active thread context\n");
        let c = vec![
            (PathBuf::from("client.out"), block.as_bytes().to_vec()),
            (PathBuf::from("simout.txt"), simout.clone().into_bytes()),
        ];
        assert_eq!(
            pick_output(&c).unwrap(),
            (
                0,
                Some(
                    "client.out and simout.txt hold the same client output; client.out is read"
                        .into()
                )
            )
        );
        let other = block.replace("seed=1", "seed=2");
        let c = vec![
            (PathBuf::from("client.out"), other.into_bytes()),
            (PathBuf::from("simout.txt"), simout.into_bytes()),
        ];
        let e = pick_output(&c).unwrap_err();
        assert!(e.starts_with("several client outputs that differ: client.out (5 client lines, rounds=1), simout.txt (5 client lines, rounds=1)"), "{e}");
    }
}
