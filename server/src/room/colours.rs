//! Each racer's colour in the room: one index into the clients' palette,
//! the same on every screen, so friends around one table can say "I'm the
//! orange one" (before, every screen drew its own player blue and the rest
//! in turn, so Bea was orange on one phone and pink on another).
//!
//! A racer (a member who does not watch, or a rival) gets the lowest index
//! no other racer of the room holds when they join, and keeps it while
//! they stay; a place freed by one who left is the next newcomer's. So the
//! first friends in a room get the palette's first, most distinct colours,
//! and at most 64 racers and 3 rivals hold at most 67 indexes.

use mazerace_protocol::messages::PlayerId;

/// Who holds which colour.
#[derive(Debug, Default)]
pub(super) struct Colours {
    held: Vec<(PlayerId, u8)>,
}

impl Colours {
    /// `id`'s colour, if they race.
    pub(super) fn of(&self, id: PlayerId) -> Option<u8> {
        self.held.iter().find(|(p, _)| *p == id).map(|(_, c)| *c)
    }

    /// Gives `id` the lowest colour none of `racers` (the room's racers
    /// now, `id` aside) holds; colours of those no longer in `racers` are
    /// free again. `id` keeps the one it has.
    pub(super) fn give(&mut self, id: PlayerId, racers: &[PlayerId]) -> u8 {
        self.held.retain(|(p, _)| *p == id || racers.contains(p));
        if let Some(c) = self.of(id) {
            return c;
        }
        let c = (0..=u8::MAX).find(|c| !self.held.iter().any(|(_, h)| h == c)).unwrap_or(u8::MAX);
        self.held.push((id, c));
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lowest_free_colour_kept_while_they_stay_and_freed_when_they_go() {
        let mut c = Colours::default();
        assert_eq!(c.give(1, &[]), 0);
        assert_eq!(c.give(2, &[1]), 1);
        assert_eq!(c.give(3, &[1, 2]), 2);
        assert_eq!(c.give(2, &[1, 2, 3]), 1, "kept");
        // 2 left: their colour is the next newcomer's, the others keep theirs.
        assert_eq!(c.give(4, &[1, 3]), 1);
        assert_eq!((c.of(1), c.of(2), c.of(3), c.of(4)), (Some(0), None, Some(2), Some(1)));
    }
}
