//! The aclgraph path's option presets. Its options are given once per graph, in the call that
//! runs the pass, so the explorer does not edit them per scope: the options key offers the
//! cache-flush (DCCI) shapes real deployments ship instead, and copies the
//! `super_kernel_optimize` call of the one picked.

use super::app::App;
use super::clipboard::osc52;
use super::dialog::{Dialog, Pick, Picker, Width};
use super::effect::Effect;
use crate::aclgraph::options_text::{DCCI_PRESETS, preset_call};
use crate::planner::OptionsModel;

impl App {
    /// Offers the DCCI presets when the graph's options are given once per graph, saying why
    /// they are not edited here; false (nothing done) otherwise.
    pub(super) fn offer_option_presets(&mut self) -> bool {
        let Some(ex) = self.explorer() else {
            return false;
        };
        let OptionsModel::PerGraph(why) = ex.ws.options_model() else {
            return false;
        };
        let rows = DCCI_PRESETS
            .iter()
            .filter_map(|&(options, who)| {
                let call = preset_call(options, "graph")?;
                let pick = Pick {
                    text: options.to_string(),
                    note: Some((who.to_string(), false)),
                    about: call.lines().map(str::to_string).collect(),
                    pinned: false,
                };
                Some((pick, (who, call)))
            })
            .collect();
        let picker = Picker::new(
            " aclgraph options are set once per graph: copy a deployed DCCI preset's call ",
            "no preset matches",
            rows,
            |app: &mut App, (who, call): (&str, String)| {
                app.effects.push(Effect::Copy(osc52(&call)));
                app.info(format!(
                    "copied the super_kernel_optimize call of {who} to the clipboard (OSC 52: \
                     the terminal must allow it)"
                ));
            },
        );
        self.info(why.to_string());
        self.dialog = Some(Dialog::Pick(picker.width(Width::Wide)));
        true
    }
}
