//! Rows do not move under the pointer or a finger: while the pointer is over the list, and for
//! a while after a touch or a scroll, the order the live updates would give waits (a changed
//! row is marked instead); what the visitor asks (search, filters, sort, tab) is shown at once.
//! A row focused from the keyboard holds the order too: a row is a place on screen, and Enter
//! there must open the server the visitor moved to.

use leptos::prelude::*;
use protocol::browse::View;

use super::order::Order;
use super::Tab;

/// How long the order waits after a touch or a scroll, in milliseconds.
const HOLD_AFTER_TOUCH_MS: f64 = 3000.0;

/// Whether the order waits, and why.
#[derive(Clone, Copy)]
pub struct Hold {
    /// The order waits: rows stay where they are.
    pub held: RwSignal<bool>,
    quiet_at: StoredValue<f64>,
    pointer_over: StoredValue<bool>,
    keyboard_inside: StoredValue<bool>,
}

impl Hold {
    pub fn new() -> Self {
        Self {
            held: RwSignal::new(false),
            quiet_at: StoredValue::new(0.0),
            pointer_over: StoredValue::new(false),
            keyboard_inside: StoredValue::new(false),
        }
    }

    /// The order shown: `ordered` as soon as the visitor asks for something else, otherwise
    /// only while nothing holds it.
    pub fn shown(
        self,
        ordered: Memo<Order>,
        view: RwSignal<View>,
        tab: RwSignal<Tab>,
    ) -> RwSignal<Order> {
        let shown = RwSignal::new(Order::default());
        let asked = StoredValue::new(None::<(View, Tab)>);
        Effect::new(move |_| {
            let order = ordered.get();
            let now_asked = (view.get(), tab.get());
            let changed_view = asked.with_value(|a| a.as_ref() != Some(&now_asked));
            if changed_view || !self.held.get() {
                asked.set_value(Some(now_asked));
                shown.set(order);
            }
        });
        shown
    }

    fn release(self) {
        if !self.pointer_over.get_value()
            && !self.keyboard_inside.get_value()
            && js_sys::Date::now() >= self.quiet_at.get_value()
        {
            self.held.set(false);
        }
    }

    /// After a touch or a scroll.
    pub fn a_while(self) {
        self.quiet_at
            .set_value(js_sys::Date::now() + HOLD_AFTER_TOUCH_MS);
        self.held.set(true);
        set_timeout(
            move || self.release(),
            std::time::Duration::from_millis(HOLD_AFTER_TOUCH_MS as u64 + 10),
        );
    }

    pub fn pointer_enter(self, ev: leptos::ev::PointerEvent) {
        if ev.pointer_type() == "mouse" {
            self.pointer_over.set_value(true);
            self.held.set(true);
        }
    }

    pub fn pointer_leave(self, ev: leptos::ev::PointerEvent) {
        if ev.pointer_type() == "mouse" {
            self.pointer_over.set_value(false);
            self.release();
        }
    }

    pub fn focus_in(self, ev: leptos::ev::FocusEvent) {
        let keyboard = event_target::<web_sys::Element>(&ev)
            .matches(":focus-visible")
            .unwrap_or(false);
        self.keyboard_inside.set_value(keyboard);
        if keyboard {
            self.held.set(true);
        }
    }

    pub fn focus_out(self) {
        self.keyboard_inside.set_value(false);
        self.release();
    }
}
