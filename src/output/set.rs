//! A verb's outputs in a local folder are published as a set. Files are written under
//! temporary names and renamed into place one at a time; before the first one that
//! replaces or removes an earlier file, a journal is written (`OUT/.groundcheck-set.json`:
//! the process, the verb, and every path it replaced), and the earlier version is moved
//! aside into `OUT/.groundcheck-previous/` rather than overwritten. A verb that ends well
//! drops the earlier versions and the journal (`commit`); one that fails or is stopped
//! puts them back and removes its new files (`roll_back`), so the folder holds the earlier
//! set, whole. A journal left by a process that is gone (SIGKILL, a crash, a power cut) is
//! rolled back by the next verb that writes to the folder or reads it as a project.
//!
//! One writer at a time: a verb that finds a live journal of another process refuses to
//! start. Object stores get their set through the local staging of `remote.rs`.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::json;

use crate::error::{Error, Result};

/// The journal, in the folder it guards (hidden: listings skip it).
pub const JOURNAL: &str = ".groundcheck-set.json";
/// Where earlier versions wait until the set is committed.
const PREVIOUS: &str = ".groundcheck-previous";

#[derive(Debug)]
struct Journal {
    dir: PathBuf,
    verb: String,
    started: String,
    /// Paths (relative to `dir`) this run replaced or removed, and whether an earlier
    /// version was there.
    entries: Vec<(String, bool)>,
    /// Rolled back or committed: later replacements are refused.
    closed: bool,
}

static SET: Mutex<Option<Journal>> = Mutex::new(None);

/// The staging folder of an `--out s3://` run and the paths (relative to it) the verb
/// removed there: an earlier output the verb would have removed in a local folder (a
/// stale rejects.jsonl) is deleted from the bucket with the upload (remote.rs).
static STAGED: Mutex<Option<(PathBuf, Vec<String>)>> = Mutex::new(None);

/// Marks `dir` as the staging folder of an upload: removals below it are remembered.
pub fn stage(dir: &Path) {
    *STAGED.lock().unwrap_or_else(|p| p.into_inner()) = Some((dir.to_path_buf(), Vec::new()));
}

/// The paths the verb removed in the staging folder, to delete from the bucket.
pub fn staged_removals() -> Vec<String> {
    STAGED
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_ref()
        .map(|(_, r)| r.clone())
        .unwrap_or_default()
}

fn lock() -> std::sync::MutexGuard<'static, Option<Journal>> {
    SET.lock().unwrap_or_else(|p| p.into_inner())
}

/// Whether process `pid` is running (Linux: /proc; elsewhere taken as running).
pub fn alive(pid: u32) -> bool {
    if !Path::new("/proc/self").exists() {
        return true;
    }
    Path::new("/proc").join(pid.to_string()).exists()
}

/// When process `pid` started (clock ticks since boot, /proc/PID/stat's 22nd field):
/// with the pid it names one process, so a journal whose writer died and whose pid was
/// given to another process is not taken for a live writer's. None off Linux.
pub fn started_at(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count after its end.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

/// Whether the process a journal names (pid, and its start when recorded) is running.
fn writer_alive(pid: u32, start: Option<u64>) -> bool {
    alive(pid) && (start.is_none() || started_at(pid).is_none() || started_at(pid) == start)
}

/// The folder a verb's `out` names: itself, or the folder of a file it names.
fn root(out: &Path) -> PathBuf {
    let is_file = out.is_file()
        || (!out.is_dir()
            && out.extension().is_some_and(|e| {
                ["json", "jsonl", "parquet", "csv"].contains(&&*e.to_string_lossy())
            }));
    match (is_file, out.parent()) {
        (true, Some(p)) if !p.as_os_str().is_empty() => p.to_path_buf(),
        (true, _) => PathBuf::from("."),
        _ => out.to_path_buf(),
    }
}

/// Starts a set for `verb`'s outputs in `out`: a journal an earlier, dead process left is
/// rolled back first (said on stderr), temporaries dead processes left are removed, and a
/// live writer of another process is an error.
pub fn open(out: &Path, verb: &str) -> Result<()> {
    let dir = root(out);
    recover(&dir)?;
    reap(&dir, 0);
    *lock() = Some(Journal {
        dir,
        verb: verb.to_string(),
        started: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        entries: Vec::new(),
        closed: false,
    });
    Ok(())
}

/// For a reader of `dir` (a project folder): a journal of a dead process is rolled back
/// (the folder then holds its earlier set); one of another live process is an error.
pub fn recover(dir: &Path) -> Result<()> {
    let path = dir.join(JOURNAL);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == ErrorKind::NotFound || e.kind() == ErrorKind::NotADirectory => {
            return Ok(());
        }
        Err(e) => return Err(Error::io(path.display(), e)),
    };
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    let pid = v["pid"].as_u64().unwrap_or(0) as u32;
    let verb = v["verb"].as_str().unwrap_or("?").to_string();
    if pid == std::process::id() {
        return Ok(());
    }
    if pid != 0 && writer_alive(pid, v["pid_start"].as_u64()) {
        return Err(Error::Input(format!(
            "{}: `groundcheck {verb}` (pid {pid}, since {}) is writing its outputs there; \
             wait for it to end (one writer per folder)",
            dir.display(),
            v["started"].as_str().unwrap_or("?")
        )));
    }
    let entries: Vec<(String, bool)> = v["entries"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|e| Some((e["path"].as_str()?.to_string(), e["previous"].as_bool()?)))
                .filter(|(p, _)| safe_rel(p))
                .collect()
        })
        .unwrap_or_default();
    let restored = undo(dir, &entries);
    eprintln!(
        "{}: `groundcheck {verb}` (pid {pid}) stopped while replacing its outputs; {} \
         file(s) rolled back: the folder holds the set before it",
        dir.display(),
        restored
    );
    Ok(())
}

/// A journal path is relative and stays inside its folder.
fn safe_rel(p: &str) -> bool {
    let p = Path::new(p);
    !p.as_os_str().is_empty()
        && p.components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// Puts `new` (a file or folder) at `target`. Inside the open set, an earlier `target`
/// is moved aside (journal first) to come back if the verb does not end well; elsewhere it
/// is replaced (a folder is moved aside and removed after: one cannot be renamed over a
/// non-empty one).
pub fn replace(new: &Path, target: &Path) -> std::io::Result<()> {
    let mut set = lock();
    if let Some((j, rel)) = member(&mut set, target)? {
        j.aside(&rel, target)?;
        return std::fs::rename(new, target);
    }
    drop(set);
    plain_replace(new, target)
}

/// The open set's journal and `target`'s path in it, when `target` is inside the set; an
/// error once the set is closed (the verb is stopping).
fn member<'a>(
    set: &'a mut Option<Journal>,
    target: &Path,
) -> std::io::Result<Option<(&'a mut Journal, String)>> {
    let Some(j) = set.as_mut() else {
        return Ok(None);
    };
    let Some(rel) = j.rel(target) else {
        return Ok(None);
    };
    if j.closed {
        return Err(std::io::Error::other(
            "the verb is stopping: its outputs are left as they are",
        ));
    }
    Ok(Some((j, rel)))
}

/// Removes an earlier output at `target` (absent is fine); inside the open set it is
/// moved aside, to come back if the verb does not end well; in an upload's staging folder
/// it is remembered, to be deleted from the bucket.
pub fn remove(target: &Path) -> std::io::Result<()> {
    if let Some((dir, removed)) = STAGED.lock().unwrap_or_else(|p| p.into_inner()).as_mut()
        && let Ok(rel) = crate::store::location::lexical(target)
            .strip_prefix(crate::store::location::lexical(dir))
    {
        let rel = rel.to_string_lossy().replace('\\', "/");
        if safe_rel(&rel) && !removed.contains(&rel) {
            removed.push(rel);
        }
    }
    let mut set = lock();
    if let Some((j, rel)) = member(&mut set, target)? {
        if std::fs::symlink_metadata(target).is_err() {
            return Ok(()); // nothing to remove, nothing to put back
        }
        return j.aside(&rel, target);
    }
    drop(set);
    remove_any(target)
}

fn plain_replace(new: &Path, target: &Path) -> std::io::Result<()> {
    if !new.is_dir() || !target.is_dir() {
        return std::fs::rename(new, target);
    }
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let old = target.with_file_name(format!(".{name}.old-{}", std::process::id()));
    std::fs::rename(target, &old)?;
    std::fs::rename(new, target)?;
    std::fs::remove_dir_all(&old)
}

fn remove_any(p: &Path) -> std::io::Result<()> {
    let r = match std::fs::symlink_metadata(p) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(p),
        Ok(_) => std::fs::remove_file(p),
        Err(e) => Err(e),
    };
    match r {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
        other => other,
    }
}

impl Journal {
    fn rel(&self, target: &Path) -> Option<String> {
        let t = crate::store::location::lexical(target);
        let d = crate::store::location::lexical(&self.dir);
        let rel = t.strip_prefix(&d).ok()?;
        let rel = rel.to_string_lossy().replace('\\', "/");
        // Hidden work files (chunk folders, scratch labels) are not outputs.
        let hidden = rel.split('/').any(|p| p.starts_with('.'));
        (safe_rel(&rel) && !hidden).then_some(rel)
    }

    /// Journals `rel` (once) and moves an earlier version aside; a later write of the
    /// same path in this run replaces this run's own file.
    fn aside(&mut self, rel: &str, target: &Path) -> std::io::Result<()> {
        if self.entries.iter().any(|(r, _)| r == rel) {
            return remove_any(target);
        }
        let existed = std::fs::symlink_metadata(target).is_ok();
        self.entries.push((rel.to_string(), existed));
        self.save()?;
        if existed {
            let to = self.dir.join(PREVIOUS).join(rel);
            if let Some(p) = to.parent() {
                std::fs::create_dir_all(p)?;
            }
            std::fs::rename(target, to)?;
        }
        Ok(())
    }

    fn save(&self) -> std::io::Result<()> {
        let doc = json!({
            "pid": std::process::id(),
            "pid_start": started_at(std::process::id()),
            "verb": self.verb,
            "started": self.started,
            "entries": self.entries.iter().map(|(p, e)| json!({"path": p, "previous": e})).collect::<Vec<_>>(),
        });
        let path = self.dir.join(JOURNAL);
        let tmp = self
            .dir
            .join(format!(".groundcheck-set.json.tmp-{}", std::process::id()));
        std::fs::create_dir_all(&self.dir)?;
        std::fs::write(&tmp, doc.to_string())?;
        std::fs::rename(&tmp, path)
    }
}

/// Undoes `entries` in `dir`: each earlier version back in place, each new file removed;
/// then the earlier versions' folder and the journal go. Returns how many paths were
/// restored or removed.
fn undo(dir: &Path, entries: &[(String, bool)]) -> usize {
    let mut n = 0;
    for (rel, existed) in entries.iter().rev() {
        let target = dir.join(rel);
        let saved = dir.join(PREVIOUS).join(rel);
        if std::fs::symlink_metadata(&saved).is_ok() {
            let _ = remove_any(&target);
            n += usize::from(std::fs::rename(&saved, &target).is_ok());
        } else if !existed {
            // New in the cut run (or never written): not part of the earlier set.
            if std::fs::symlink_metadata(&target).is_ok() {
                n += usize::from(remove_any(&target).is_ok());
            }
        }
        // Existed, nothing saved: the crash came before it was moved aside; it is still
        // the earlier version.
    }
    let _ = std::fs::remove_dir_all(dir.join(PREVIOUS));
    let _ = std::fs::remove_file(dir.join(JOURNAL));
    n
}

/// The verb ended well: earlier versions and the journal are dropped.
pub fn commit() {
    let mut set = lock();
    if let Some(j) = set.as_mut() {
        j.closed = true;
        if !j.entries.is_empty() {
            let _ = std::fs::remove_dir_all(j.dir.join(PREVIOUS));
            let _ = std::fs::remove_file(j.dir.join(JOURNAL));
        }
    }
}

/// The verb failed or was stopped: the earlier set comes back. Returns the folder and the
/// paths this run had replaced or added, when there were any.
pub fn roll_back() -> Option<(PathBuf, Vec<String>)> {
    let mut set = lock();
    let j = set.as_mut()?;
    if j.closed {
        return None;
    }
    j.closed = true;
    if j.entries.is_empty() {
        return None;
    }
    undo(&j.dir, &j.entries);
    Some((
        j.dir.clone(),
        j.entries.iter().map(|(r, _)| r.clone()).collect(),
    ))
}

/// Removes, below `dir` (two levels), temporary files and folders that processes no longer
/// running left (`.NAME.tmp-PID`, `.NAME.old-PID`: a kill or a full disk between write
/// and rename).
fn reap(dir: &Path, depth: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let p = e.path();
        if let Some(pid) = temp_pid(&name) {
            if pid != std::process::id() && !alive(pid) {
                let _ = remove_any(&p);
            }
        } else if depth < 2 && !name.starts_with('.') && p.is_dir() {
            reap(&p, depth + 1);
        }
    }
}

/// The process id in a temporary's name (`.x.tmp-PID`, `.x.old-PID`).
fn temp_pid(name: &str) -> Option<u32> {
    if !name.starts_with('.') {
        return None;
    }
    let (_, tail) = name
        .rsplit_once(".tmp-")
        .or_else(|| name.rsplit_once(".old-"))?;
    tail.parse().ok()
}

/// Staging folders of `--out s3://` runs (`TMP/groundcheck-out-PID-…`) whose process is
/// gone: a killed upload leaves one, possibly large.
pub fn reap_staging() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let pid = name
            .strip_prefix("groundcheck-out-")
            .and_then(|t| t.split('-').next())
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid
            && pid != std::process::id()
            && !alive(pid)
        {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporaries_name_their_process() {
        assert_eq!(temp_pid(".report.json.tmp-123"), Some(123));
        assert_eq!(temp_pid(".traces.old-9"), Some(9));
        assert_eq!(temp_pid("report.json.tmp-123"), None);
        assert_eq!(temp_pid(".x.tmp-abc"), None);
    }

    #[test]
    fn journal_paths_stay_inside() {
        assert!(safe_rel("labels.jsonl"));
        assert!(safe_rel("traces/otlp.parquet"));
        assert!(!safe_rel("../etc/passwd"));
        assert!(!safe_rel("/etc/passwd"));
        assert!(!safe_rel(""));
    }

    #[test]
    fn a_dead_writers_journal_is_rolled_back() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path();
        std::fs::write(dir.join("labels.jsonl"), "new\n").unwrap();
        std::fs::write(dir.join("extra.json"), "new\n").unwrap();
        std::fs::write(dir.join("report.json"), "old\n").unwrap();
        std::fs::create_dir_all(dir.join(PREVIOUS)).unwrap();
        std::fs::write(dir.join(PREVIOUS).join("labels.jsonl"), "old\n").unwrap();
        // A pid that cannot be running.
        let journal = json!({"pid": u32::MAX - 1, "verb": "report", "started": "x", "entries": [
            {"path": "labels.jsonl", "previous": true},
            {"path": "extra.json", "previous": false},
            {"path": "report.json", "previous": true},
            {"path": "../outside", "previous": false},
        ]});
        std::fs::write(dir.join(JOURNAL), journal.to_string()).unwrap();
        recover(dir).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("labels.jsonl")).unwrap(),
            "old\n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("report.json")).unwrap(),
            "old\n"
        );
        assert!(!dir.join("extra.json").exists());
        assert!(!dir.join(JOURNAL).exists());
        assert!(!dir.join(PREVIOUS).exists());
    }

    /// A dead writer's pid given to another process: its start time tells them apart.
    #[test]
    fn a_reused_pid_is_not_the_writer() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("labels.jsonl"), "new\n").unwrap();
        let start = started_at(1).expect("Linux has /proc/1/stat");
        let journal = json!({"pid": 1, "pid_start": start + 1, "verb": "label", "started": "t",
            "entries": [{"path": "labels.jsonl", "previous": false}]});
        std::fs::write(d.path().join(JOURNAL), journal.to_string()).unwrap();
        recover(d.path()).unwrap();
        assert!(!d.path().join("labels.jsonl").exists());
        let journal =
            json!({"pid": 1, "pid_start": start, "verb": "label", "started": "t", "entries": []});
        std::fs::write(d.path().join(JOURNAL), journal.to_string()).unwrap();
        assert!(
            recover(d.path()).is_err(),
            "the same process is still the writer"
        );
    }

    #[test]
    fn a_live_writers_journal_refuses_another() {
        let d = tempfile::tempdir().unwrap();
        // pid 1 is always running.
        let journal = json!({"pid": 1, "verb": "label", "started": "t", "entries": []});
        std::fs::write(d.path().join(JOURNAL), journal.to_string()).unwrap();
        let e = recover(d.path()).unwrap_err().to_string();
        assert!(
            e.contains("`groundcheck label` (pid 1, since t) is writing"),
            "{e}"
        );
    }
}
