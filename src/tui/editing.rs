//! Editing in the explorer: the edit actions, the scope picker and the yes/no questions, the
//! options editor's keys, undo and redo, saving the plan file, the journal that protects edits
//! against a crash, and quitting with unsaved edits.

use super::action::Action;
use super::app::{App, MESSAGES_KEPT, Prompt, Screen, Status};
use super::dialog::{Answer, Confirm, Dialog, Pick, Picker, Width};
use super::effect::Effect;
use super::options_editor::OptionsEditor;
use super::session::{Journaled, WriteDoubt};
use crate::edit::Edit;
use crate::fusion::plan::{OutcomeKind, ScopeStatus};
use crate::journal::{self, JournalEntry, Recovery};
use crate::planfile::PlanFile;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use std::path::PathBuf;

/// A one-line summary of what the last change did to the plan.
fn change_summary(app: &App, undo: bool) -> String {
    let Some(ex) = app.explorer() else {
        return String::new();
    };
    let changes = ex.ws.changes();
    if changes.is_empty() {
        return "the plan did not change".to_string();
    }
    let mut parts = Vec::new();
    match changes.outcome {
        (before, after) if before == after => {}
        (_, OutcomeKind::BuildFails) => parts.push("✗ the build now fails".to_string()),
        (OutcomeKind::BuildFails, _) => parts.push("✓ the build no longer fails".to_string()),
        _ => {}
    }
    let (breaks, healed) = (changes.breaks_added, changes.breaks_healed);
    if breaks > 0 {
        parts.push(format!("+{breaks} break(s)"));
    }
    if healed > 0 {
        parts.push(format!("{healed} break(s) healed"));
    }
    if !changes.added_segments.is_empty() || !changes.removed_segments.is_empty() {
        parts.push(format!(
            "segments +{} −{}",
            changes.added_segments.len(),
            changes.removed_segments.len()
        ));
    }
    // Scopes that a failed build leaves unbuilt (or builds again) are counted, not listed.
    let not_built = Some(ScopeStatus::NotBuilt);
    let (follow, own): (Vec<_>, Vec<_>) = changes
        .statuses
        .iter()
        .partition(|(_, before, after)| *before == not_built || *after == not_built);
    for (name, before, after) in own.iter().take(2) {
        let word = |s: &Option<ScopeStatus>, none: &'static str| s.map_or(none, |s| s.label());
        // A scope that appears by an undo was deleted before, not new.
        parts.push(format!(
            "{name} {} → {}",
            word(before, if undo { "gone" } else { "new" }),
            word(after, "gone")
        ));
    }
    if own.len() > 2 {
        parts.push(format!("{} more scopes changed", own.len() - 2));
    }
    if !follow.is_empty() {
        let built_again = follow.iter().filter(|(_, b, _)| *b == not_built).count();
        let unbuilt = follow.len() - built_again;
        if unbuilt > 0 {
            parts.push(format!("{unbuilt} scope(s) not built"));
        }
        if built_again > 0 {
            parts.push(format!("{built_again} scope(s) built again"));
        }
    }
    let (before, after) = changes.findings;
    if before != after {
        parts.push(format!("findings {before} → {after}"));
    }
    if parts.is_empty() {
        parts.push("plan changed".to_string());
    }
    parts.join(", ")
}

impl App {
    pub(super) fn info(&mut self, text: String) {
        self.say(Status {
            text,
            problem: false,
        });
    }

    pub(super) fn problem(&mut self, text: String) {
        self.say(Status {
            text,
            problem: true,
        });
    }

    /// Shows `status` on the bottom line and keeps it in the messages.
    fn say(&mut self, status: Status) {
        self.log_message(status.clone());
        self.status = Some(status);
    }

    /// Keeps `status` in the messages (the last [`MESSAGES_KEPT`]).
    pub(super) fn log_message(&mut self, status: Status) {
        if self.messages.len() == MESSAGES_KEPT {
            self.messages.pop_front();
        }
        self.messages.push_back((self.now, status));
    }

    /// `M`: the last messages in full, newest first.
    pub(super) fn show_messages(&mut self) {
        if self.messages.is_empty() {
            return self.info("no messages yet".to_string());
        }
        let texts: Vec<String> = self
            .messages
            .iter()
            .rev()
            .map(|(at, status)| {
                format!(
                    "{:>6} {} {}",
                    crate::text::duration(*at),
                    if status.problem { "!" } else { "·" },
                    status.text
                )
            })
            .collect();
        let title = format!(" The last {} message(s), newest first ", texts.len());
        let rows = texts
            .into_iter()
            .enumerate()
            .map(|(n, text)| {
                let mut pick = Pick::new(format!("{:>3}. {text}", n + 1));
                // Its whole text, wrapped (the rows are cut at the edge).
                pick.about = vec![text];
                (pick, ())
            })
            .collect();
        let picker = Picker::new(title, "no message matches", rows, |_: &mut App, ()| {});
        self.dialog = Some(Dialog::Pick(picker.width(Width::Wide)));
    }

    /// Applies `edit` (steps with the same `key` in a row are one undo step), records it in
    /// the journal and shows what it did.
    pub(super) fn apply_edit(&mut self, edit: Edit, key: Option<u64>) {
        self.apply_edits(vec![edit], key);
    }

    /// Applies `edits` as one undo step, planned once ([`Workspace::apply_all`]), records each
    /// in the journal (with `key`, so a replay makes them one step again) and shows what they
    /// did; false when they could not be made (said why).
    pub(super) fn apply_edits(&mut self, edits: Vec<Edit>, key: Option<u64>) -> bool {
        let Screen::Explorer(ex) = &mut self.screen else {
            return false;
        };
        let words = crate::edit::describe_all(&edits);
        let entries: Vec<JournalEntry> = edits
            .iter()
            .map(|edit| JournalEntry::Edit {
                edit: journal::named(ex.ws.graph(), edit),
                key,
            })
            .collect();
        match ex.apply_all(edits, key) {
            Ok(()) => {
                let mut journaled = None;
                for entry in &entries {
                    journaled = journaled.or(self.session.record(entry));
                }
                let summary = change_summary(self, false);
                self.profiles_follow_plan();
                self.comparison_follows_plan();
                self.say_done(format!("{words}: {summary}"), journaled);
                true
            }
            Err(e) => {
                self.problem(format!("{words}: {e}"));
                false
            }
        }
    }

    /// Undoes (`redo` false) or redoes the last step.
    pub(super) fn step_history(&mut self, redo: bool) {
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        let Some(words) = ex.step_history(redo) else {
            let what = if redo { "redo" } else { "undo" };
            self.problem(format!("nothing to {what}"));
            return;
        };
        let entry = if redo {
            JournalEntry::Redo
        } else {
            JournalEntry::Undo
        };
        let journaled = self.session.record(&entry);
        let summary = change_summary(self, !redo);
        self.profiles_follow_plan();
        self.comparison_follows_plan();
        let verb = if redo { "redone" } else { "undone" };
        self.say_done(format!("{verb}: {words}: {summary}"), journaled);
    }

    /// Says what a step did, and what recording it in the journal has to say: a problem (the
    /// step is on screen but not in the journal yet) comes last, so the bottom line shows it.
    fn say_done(&mut self, done: String, journaled: Option<Journaled>) {
        match journaled {
            None => self.info(done),
            Some(Journaled::Info(news)) => self.info(format!("{done}; {news}")),
            Some(Journaled::Problem(problem)) => {
                self.info(done);
                self.problem(problem);
            }
        }
    }

    /// Saves the plan file; true when it was written.
    pub(super) fn save(&mut self) -> bool {
        self.save_then(false)
    }

    /// Saves the plan file, asking first when it would replace a file this session did not
    /// read or write (then the answer saves, and quits when `quit`). True when saved now. The
    /// dump itself is never written over: the user is asked for another file.
    fn save_then(&mut self, quit: bool) -> bool {
        let Some(ex) = self.explorer() else {
            return false;
        };
        let path = self.session.plan_path.clone();
        let dump = std::path::Path::new(&ex.ws.source().file);
        if crate::own_files::same_file(&path, dump) {
            self.problem(format!(
                "{} is the dump this window opened: saving the plan there would replace the \
                 graph; give another file",
                path.display()
            ));
            self.ask_save_to(quit);
            return false;
        }
        let Some(doubt) = self.session.must_ask() else {
            return self.write_plan();
        };
        let on_disk = PlanFile::read(&path).ok();
        let scopes = on_disk
            .as_ref()
            .map_or("?".to_string(), |f| f.scopes.len().to_string());
        let mut question = match doubt {
            WriteDoubt::LinkToOther(target) => format!(
                "{} is a symbolic link to {}, which is not a skope plan file. Replace {} with \
                 this session's scopes?",
                path.display(),
                target.display(),
                target.display()
            ),
            WriteDoubt::OtherGraph(made) => format!(
                "A plan made for another graph is in {} ({}, {} ops, {scopes} scope(s)). \
                 Replace it with this session's scopes?",
                path.display(),
                crate::text::sanitize(&made.name),
                made.ops
            ),
            WriteDoubt::ChangedSince => format!(
                "Another session or program wrote {} ({scopes} scope(s)) since this one \
                 read it. Replace it with this session's scopes?",
                path.display()
            ),
            WriteDoubt::NotOpened => format!(
                "This session did not open {} ({scopes} scope(s)). Replace it with this \
                 session's scopes?",
                path.display()
            ),
        };
        if let (Some(file), Some(ex)) = (&on_disk, self.explorer()) {
            question.push_str(&dropped_ops(file, ex.ws.graph()));
        }
        let overwrite = move |app: &mut App| {
            if app.write_plan() && quit {
                app.quit_now();
            }
        };
        self.dialog = Some(Dialog::Confirm(Confirm::new(
            question,
            vec![
                Answer::new('o', "overwrite it", overwrite),
                Answer::new('a', "save elsewhere…", move |app: &mut App| {
                    app.ask_save_to(quit)
                }),
                Answer::cancel('c', "cancel"),
            ],
        )));
        false
    }

    /// Asks for another file to save the plan to (then quits, when `quit`).
    pub(super) fn ask_save_to(&mut self, quit: bool) {
        let offered = self.session.plan_path.display().to_string();
        self.prompt = Some(Prompt::new(
            "save to: ",
            "enter save · esc cancel · a plan file (w saves there from then on)",
            offered,
            move |app: &mut App, typed| app.save_to(&typed, quit),
        ));
    }

    /// Saves to `typed`, the file the user gave: `w` saves there from then on (asking first
    /// when a file is there that this session did not write).
    fn save_to(&mut self, typed: &str, quit: bool) {
        let typed = typed.trim();
        if typed.is_empty() {
            return self.problem("no file given: nothing saved".to_string());
        }
        let path = crate::paths::expand_home(typed);
        if path.is_dir() {
            return self.problem(format!(
                "{} is a folder: give a file (e.g. {}/plan.skope.json)",
                path.display(),
                path.display()
            ));
        }
        if path != self.session.plan_path {
            self.session.plan_path = path;
            self.session.known = None;
        }
        if self.save_then(quit) && quit {
            self.session.end();
            self.effects.push(Effect::Quit);
        }
    }

    /// Writes the plan file now: the journal first says what the file will hold (so a stop
    /// between the save and the journal's truncation is known to have saved), then the file
    /// is replaced, then the journal starts again from it.
    fn write_plan(&mut self) -> bool {
        let Screen::Explorer(ex) = &mut self.screen else {
            return false;
        };
        let path = self.session.plan_path.clone();
        let plan = PlanFile::of(&ex.ws);
        let bytes = plan.to_json();
        if let Some(journal) = &mut self.session.journal {
            let digest = journal::Digest::of(bytes.as_bytes());
            // Not written: the recovery offers the edits again, as if the save had not been.
            let _ = journal.append(&JournalEntry::Saving { digest });
        }
        match plan.write_bytes(&path, bytes.as_bytes()) {
            Ok(()) => {
                ex.ws.mark_saved();
                self.session.known = Some(super::loader::modified(&path));
                // The plan file holds the edits now: a replay would start from it.
                self.session.starts_from(path.clone());
                let cleared = match &mut self.session.journal {
                    Some(journal) => journal
                        .clear()
                        .err()
                        .map(|e| (journal.path().to_path_buf(), e)),
                    None => None,
                };
                self.session.held_back = false;
                let saved = format!("saved {} scope(s) to {}", plan.scopes.len(), path.display());
                match cleared {
                    None => self.info(saved),
                    Some((journal, e)) => self.problem(format!(
                        "{saved}; the journal {} could not be emptied ({e}): its edits are in the \
                         plan file, and a recovery would say so",
                        journal.display()
                    )),
                }
                true
            }
            Err(e) => {
                self.problem(format!(
                    "{} (ctrl-s saves to another file)",
                    e.to_string().replace('\n', " ")
                ));
                false
            }
        }
    }

    /// Prepares loading the dump again in this session: keeps the scopes when they have
    /// unsaved edits (to carry them over once loaded), shows the loading screen, and returns
    /// what to load — the plan file this session opened, if it did; `None` without a dump
    /// loaded.
    pub fn load_again(&mut self) -> Option<super::loader::LoadRequest> {
        let mut request = self.reload.clone()?;
        let Screen::Explorer(ex) = &self.screen else {
            return None;
        };
        self.session.carried = ex.ws.is_dirty().then(|| PlanFile::of(&ex.ws));
        request.again = true;
        request.plan = super::loader::PlanPath {
            path: self.session.plan_path.clone(),
            given: self.session.has_opened(),
            earlier: Vec::new(),
            force: true,
            kept_apart: None,
        };
        self.screen = Screen::Loading(super::app::Loading {
            file: request.input.name(),
            stage: None,
            elapsed: std::time::Duration::ZERO,
        });
        Some(request)
    }

    /// Puts the scopes kept while the dump was loaded again onto the new graph, by op name:
    /// still unsaved, and the journal starts again with them. Returns what did not carry
    /// over, in words.
    pub(super) fn carry_scopes_over(&mut self) -> Vec<String> {
        let Some(carried) = self.session.carried.take() else {
            return Vec::new();
        };
        let Screen::Explorer(ex) = &mut self.screen else {
            return Vec::new();
        };
        let (marks, mismatch) = carried.marks_for(ex.ws.graph());
        ex.carry_marks(marks);
        let scopes = PlanFile::of(&ex.ws);
        let graph = ex.ws.source().id.clone();
        let mut notes = Vec::new();
        if let Some(journal) = &mut self.session.journal {
            let entries = vec![JournalEntry::Scopes {
                plan: Box::new(scopes),
            }];
            if let Err(e) = journal.restart(&graph, entries) {
                notes.push(format!(
                    "the journal {} could not be written again ({e}): w saves the scopes",
                    journal.path().display()
                ));
            }
        }
        let lacking = mismatch.missing_ops.len();
        let mut first =
            "loaded again; the unsaved scopes are carried over by op name and are still unsaved"
                .to_string();
        if lacking > 0 {
            first.push_str(&format!(
                "; {lacking} op(s) they named are no longer in the graph (M lists them)"
            ));
        }
        notes.insert(0, first);
        notes.extend(
            mismatch
                .lines(usize::MAX)
                .into_iter()
                .skip(usize::from(mismatch.other_graph.is_some())),
        );
        notes
    }

    /// Quits, asking first when runs are still going or there are unsaved edits.
    pub(super) fn request_quit(&mut self) {
        let running = self.runs.running();
        if running > 0 && !self.runs_may_stop {
            let stop = |app: &mut App| {
                app.runs_may_stop = true;
                app.request_quit();
            };
            self.dialog = Some(Dialog::Confirm(Confirm::new(
                format!(
                    "{running} run(s) still running. Quitting stops them (their whole process groups)."
                ),
                // Not `q`: pressing the quit key twice must not stop the runs.
                vec![
                    Answer::new('s', "stop them and quit", stop),
                    Answer::cancel('c', "stay"),
                ],
            )));
            return;
        }
        let dirty = self.explorer().is_some_and(|ex| ex.ws.is_dirty());
        if !dirty {
            return self.quit_now();
        }
        let path = self.session.plan_path.display().to_string();
        let save = |app: &mut App| {
            if app.save_then(true) {
                app.quit_now();
            }
        };
        self.dialog = Some(Dialog::Confirm(Confirm::new(
            format!("The scopes have unsaved edits. Save them to {path}?"),
            // Not `q`: pressing the quit key twice must not throw the edits away.
            vec![
                Answer::new('s', "save and quit", save),
                Answer::new('a', "save elsewhere and quit…", |app: &mut App| {
                    app.ask_save_to(true)
                }),
                Answer::new('d', "discard the edits and quit", App::quit_now),
                Answer::cancel('c', "stay"),
            ],
        )));
    }

    /// Ends the session and quits.
    fn quit_now(&mut self) {
        self.session.end();
        self.effects.push(Effect::Quit);
    }

    /// Offers the plan file saved for the dump (or, asking plainly, one made for another
    /// graph of which some ops are here).
    pub(super) fn offer_saved_plan(&mut self, saved: super::loader::SavedPlan) {
        let path = saved.path.display();
        let question = match saved.other_graph {
            Some((found, named)) => format!(
                "{path} holds a plan made for another graph ({found} of {named} ops found here; \
                 {} scope(s), written {}). Apply it by op name?",
                saved.scopes, saved.modified
            ),
            None if saved.earlier => format!(
                "A plan saved for this dump by an earlier skope exists: {path} ({} scope(s), \
                 written {}). Opening it leaves it there; w saves to {}.",
                saved.scopes,
                saved.modified,
                self.session.plan_path.display()
            ),
            None => format!(
                "A plan saved for this dump exists: {path} ({} scope(s), written {}).",
                saved.scopes, saved.modified
            ),
        };
        let open = if saved.other_graph.is_some() {
            "apply it (w asks before replacing the file)"
        } else {
            "open it"
        };
        let (path, earlier) = (saved.path, saved.earlier);
        let keep = |app: &mut App| {
            app.info(format!(
                "kept the dump's scopes; {} stays as it is (w asks before replacing it)",
                app.session.plan_path.display()
            ))
        };
        self.dialog = Some(Dialog::Confirm(Confirm::new(
            question,
            vec![
                Answer::new('o', open, move |app: &mut App| {
                    app.open_saved_plan(path, earlier)
                }),
                Answer::new(
                    'd',
                    "keep the dump's scopes (w asks before replacing the file)",
                    keep,
                ),
            ],
        )));
    }

    /// Applies the plan file at `path`; saves to it from now on unless an `earlier` skope
    /// saved it (then `w` saves to the plan file of the naming rule).
    fn open_saved_plan(&mut self, path: PathBuf, earlier: bool) {
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        let modified = super::loader::modified(&path);
        match PlanFile::read(&path) {
            Ok(file) => {
                let (marks, mismatch) = file.marks_for(ex.ws.graph());
                ex.reset_marks(marks);
                let scopes = file.scopes.len();
                if earlier {
                    // The edits start from a plan file the session does not write: a replay
                    // must start from it too.
                    self.session.starts_from(path.clone());
                } else {
                    self.session.opened(path.clone(), modified);
                }
                let saves = self.session.plan_path.display().to_string();
                match mismatch.lines(1).first() {
                    Some(first) => self.problem(format!(
                        "opened {} ({scopes} scope(s)); {first}; w saves to {saves}",
                        path.display()
                    )),
                    None => self.info(format!(
                        "opened {} ({scopes} scope(s)); w saves to {saves}",
                        path.display()
                    )),
                }
            }
            Err(e) => self.problem(e.to_string().replace('\n', " ")),
        }
    }

    /// Offers to replay what an unfinished session left, saying what is true of it: what the
    /// edits start from, whether that changed since, and what a damaged journal lost.
    pub(super) fn offer_recovery(&mut self, recovery: Recovery) {
        let path = self
            .session
            .journal
            .as_ref()
            .map_or_else(String::new, |j| j.path().display().to_string());
        let by = recovery.left_by.as_ref().map_or_else(String::new, |h| {
            format!(" (left by {}, which has ended)", h.words())
        });
        let made_on = match (&recovery.base, recovery.saved_part) {
            (Some(base), true) => format!(
                "made after the last session saved to {} (what it saved is in it)",
                base.display()
            ),
            (Some(base), false) => format!("made on the scopes of {}", base.display()),
            (None, _) => "made on the dump's own scopes".to_string(),
        };
        let mut question = format!(
            "The last session did not end cleanly: {} edit(s) to recover, {made_on}; its \
             journal {path}{by} holds them.",
            recovery.edits()
        );
        if recovery.base_changed
            && let Some(base) = &recovery.base
        {
            question.push_str(&format!(
                " {} changed since they were made (another window or program wrote it): they \
                 are replayed on it as it is now.",
                base.display()
            ));
        }
        if let Some(damage) = &recovery.damage {
            question.push_str(&format!(" {}.", journal::damage_words(damage, &recovery)));
        }
        self.session.pending = Some(recovery);
        self.dialog = Some(Dialog::Confirm(Confirm::new(
            question,
            vec![
                Answer::new('r', "recover them", App::recover),
                Answer::new('d', "discard them", App::discard_recovery),
            ],
        )));
    }

    /// Replays what the unfinished session left, and starts this session's journal again
    /// from exactly that.
    fn recover(&mut self) {
        let Some(recovery) = self.session.pending.take() else {
            return;
        };
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        let replay = ex.replay(&recovery.entries);
        let graph = ex.ws.source().id.clone();
        let restarted = match &mut self.session.journal {
            Some(journal) => journal::restart_from(journal, &recovery, &graph)
                .err()
                .map(|e| format!("; the journal could not be written again ({e})")),
            None => None,
        };
        let restarted = restarted.unwrap_or_default();
        if replay.skipped.is_empty() && restarted.is_empty() {
            self.info(format!("recovered {} edit(s)", replay.applied));
        } else {
            let skipped = match replay.skipped.first() {
                Some(first) => format!("; {} skipped, the first: {first}", replay.skipped.len()),
                None => String::new(),
            };
            self.problem(format!(
                "recovered {} edit(s){skipped}{restarted}",
                replay.applied
            ));
        }
    }

    /// Drops what the unfinished session left: this session's journal starts again, empty.
    fn discard_recovery(&mut self) {
        self.session.pending = None;
        // The journal is this session's (its lock is held).
        let base = self.session.base().map(std::path::Path::to_path_buf);
        if let Some(journal) = &mut self.session.journal {
            journal.set_base(base.as_deref());
            let _ = journal.clear();
        }
        self.info("discarded the journal of the last session".to_string());
    }

    /// Keys while a dialog is open: an answer, or picking from a list; what is chosen goes
    /// back to whoever asked.
    pub(super) fn dialog_key(&mut self, key: KeyEvent) {
        let Some(dialog) = &mut self.dialog else {
            return;
        };
        match dialog {
            Dialog::Confirm(confirm) => {
                let then = match key.code {
                    KeyCode::Char(c) => confirm.answer(Some(c)),
                    // Esc answers the last (the safe) choice.
                    KeyCode::Esc => confirm.answer(None),
                    _ => None,
                };
                if let Some(then) = then {
                    self.dialog = None;
                    then(self);
                }
            }
            Dialog::Pick(picker) => {
                let shown = picker.shown().len();
                match key.code {
                    KeyCode::Esc => self.dialog = None,
                    KeyCode::Up => picker.selected = picker.selected.saturating_sub(1),
                    KeyCode::Down => {
                        picker.selected = (picker.selected + 1).min(shown.saturating_sub(1))
                    }
                    KeyCode::Backspace => {
                        picker.filter.pop();
                        picker.selected = 0;
                    }
                    KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                        picker.filter.push(c);
                        picker.selected = 0;
                    }
                    KeyCode::Enter => {
                        let Some(Dialog::Pick(picker)) = self.dialog.take() else {
                            return;
                        };
                        let none = picker.none_matches;
                        match picker.pick() {
                            Some(then) => then(self),
                            None => self.problem(none.to_string()),
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    /// The edit actions (the ones in the help's "Edit scopes" group): undo, redo and saving
    /// here, the others on the explorer.
    pub(super) fn edit_action(&mut self, action: Action) {
        match action {
            Action::Undo => self.step_history(false),
            Action::Redo => self.step_history(true),
            Action::Save => {
                self.save();
            }
            Action::SaveTo => self.ask_save_to(false),
            Action::EditOptions if self.offer_option_presets() => {}
            _ if self.ask_scope_edit(action) => {}
            _ => {
                let Screen::Explorer(ex) = &mut self.screen else {
                    return;
                };
                let outcome = ex.edit_action(action);
                self.carry_out(outcome);
            }
        }
    }

    /// Keys while the options editor is open; false when the key is not the editor's (it then
    /// works as usual: undo, save, help, quit…).
    pub(super) fn options_key(&mut self, key: KeyEvent) -> bool {
        let Screen::Explorer(ex) = &mut self.screen else {
            return false;
        };
        let Some(editor) = &mut ex.options else {
            return false;
        };
        if editor.input.is_some() {
            let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
            let input = editor.input.as_mut().map(|s| s as &mut String);
            match (key.code, input) {
                (KeyCode::Esc, _) => editor.input = None,
                (KeyCode::Enter, _) => match editor.commit_input() {
                    Ok(text) if text != editor.text => {
                        let (scope, step) = (editor.scope.clone(), editor.step_key());
                        self.apply_edit(
                            Edit::SetOptions {
                                scope,
                                options: text,
                            },
                            Some(step),
                        );
                    }
                    Ok(_) => {}
                    Err(e) => {
                        self.problem(format!("{} (GE: {})", e.message, e.ge_message));
                    }
                },
                (KeyCode::Backspace, Some(input)) => {
                    input.pop();
                }
                (KeyCode::Char('u'), Some(input)) if ctrl => input.clear(),
                (KeyCode::Char(c), Some(input)) if !ctrl => input.push(c),
                _ => {}
            }
            return true;
        }
        let Some(action) = self.config.keymap.action(key) else {
            return true;
        };
        let new_text = match action {
            Action::Up | Action::Down | Action::PageUp | Action::PageDown => {
                let step = match action {
                    Action::Up => -1,
                    Action::Down => 1,
                    Action::PageUp => -8,
                    _ => 8,
                };
                editor.move_by(step);
                None
            }
            Action::Top => {
                editor.row = 0;
                None
            }
            Action::Bottom => {
                editor.row = OptionsEditor::ROWS - 1;
                None
            }
            Action::Collapse | Action::Expand => editor.cycle(action == Action::Expand),
            Action::Activate => match editor.cycle(true) {
                Some(text) => Some(text),
                None => {
                    editor.begin_input();
                    None
                }
            },
            Action::RemoveFromScope => editor.unset(),
            Action::Back => {
                ex.options = None;
                None
            }
            Action::Undo
            | Action::Redo
            | Action::Save
            | Action::Help
            | Action::Quit
            | Action::Suspend => return false,
            _ => None,
        };
        if let (Some(text), Some(editor)) = (new_text, &ex.options) {
            let (scope, step) = (editor.scope.clone(), editor.step_key());
            self.apply_edit(
                Edit::SetOptions {
                    scope,
                    options: text,
                },
                Some(step),
            );
        }
        true
    }
}

/// What replacing the plan `file` drops: the ops its scopes name that `graph` lacks (a plan
/// made for an older dump), in words after a question; empty when there are none.
fn dropped_ops(file: &PlanFile, graph: &crate::graph::Graph) -> String {
    let (_, mismatch) = file.marks_for(graph);
    let missing = &mismatch.missing_ops;
    if missing.is_empty() {
        return String::new();
    }
    const SHOWN: usize = 5;
    let names: Vec<String> = missing
        .iter()
        .take(SHOWN)
        .map(|(op, _)| crate::text::sanitize(op).into_owned())
        .collect();
    let more = missing.len().saturating_sub(SHOWN);
    format!(
        " Its scopes name {} op(s) this graph lacks ({}{}): replacing it drops them.",
        missing.len(),
        names.join(", "),
        if more > 0 {
            format!(", and {more} more")
        } else {
            String::new()
        }
    )
}
