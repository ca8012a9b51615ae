//! "Compare with…" (`O`) in the explorer: asking what to compare with, comparing on a worker,
//! again after each edit, and taking the answer in ([`super::compare_with`] holds the state and
//! the work).

use super::app::{App, Prompt, Screen};
use super::compare_with::{Compared, Planned, compare, open_other};
use crate::text::sanitize;
use std::path::PathBuf;
use std::sync::Arc;

impl App {
    /// `O`: asks what to compare with, or stops comparing.
    pub(super) fn compare_with(&mut self) {
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        if ex.comparing {
            ex.comparing = false;
            let name = ex.compared.take().map_or_else(String::new, |c| c.name);
            return self.info(format!("no longer comparing with {name}"));
        }
        self.prompt = Some(Prompt::new(
            "compare with: ",
            "enter compare · esc cancel · another dump (an older one, another CANN's) or a plan file of this graph",
            String::new(),
            |app: &mut App, typed| app.submit_compare_with(&typed),
        ));
    }

    /// Opens the dump or plan file the prompt names and compares with it, on a worker when
    /// there is an event loop.
    pub(super) fn submit_compare_with(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return self.problem("no dump or plan file given".to_string());
        }
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        ex.comparing = true;
        let path = PathBuf::from(text);
        let name = sanitize(text).into_owned();
        let planning = ex.ws.planning();
        let current = Planned::of(&ex.ws);
        let (options, rules) = self.reload.as_ref().map_or_else(
            || (Default::default(), Default::default()),
            |r| (r.options, r.rules.clone()),
        );
        let work = move || -> Result<Compared, String> {
            let other = open_other(&path, &planning, (options, &rules))
                .map_err(|why| format!("cannot compare with {name}: {why}"))?;
            Ok(compare(name, Arc::new(other), &current))
        };
        self.info(format!("comparing with {}…", sanitize(text)));
        self.run_comparison(work);
    }

    /// Compares again after the plan changed, with the same other side.
    pub(super) fn comparison_follows_plan(&mut self) {
        let Screen::Explorer(ex) = &self.screen else {
            return;
        };
        let Some(c) = &ex.compared else {
            return;
        };
        let (name, other, current) = (c.name.clone(), Arc::clone(&c.other), Planned::of(&ex.ws));
        self.run_comparison(move || Ok(compare(name, other, &current)));
    }

    /// Runs `work` on a worker; its answer comes back as [`App::compared_with`].
    fn run_comparison(&mut self, work: impl FnOnce() -> Result<Compared, String> + Send + 'static) {
        self.work("skope-compare", work, |app, answer| {
            app.compared_with(
                answer.unwrap_or_else(|stopped| Err(format!("the comparison: {stopped}"))),
            );
        });
    }

    /// Takes in a comparison: keeps it unless the plan has changed since (a newer one is on
    /// its way), and says what it found.
    pub(super) fn compared_with(&mut self, answer: Result<Compared, String>) {
        let Screen::Explorer(ex) = &mut self.screen else {
            return;
        };
        match answer {
            Ok(c) if ex.comparing && c.version == ex.ws.version() => {
                let first = ex.compared.is_none();
                let summary = c.summary();
                ex.compared = Some(c);
                if first {
                    self.info(summary);
                }
            }
            Ok(_) => {}
            Err(why) => {
                if ex.compared.is_none() {
                    ex.comparing = false;
                }
                self.problem(sanitize(&why.replace('\n', " ")).into_owned());
            }
        }
    }
}
