//! Who the room lets in: the checks the actor makes before a join (a
//! player or spectator, or a screen) is answered; the join itself is
//! `Input::Join`, applied in `state.rs`. Same [`Room`] as `state.rs`.

use mazerace_protocol::messages::PlayerId;

use super::state::Room;
use super::JoinError;

impl Room {
    /// Whether `id` may join: `Full` for a daily room, a full room (or
    /// spectator list), or a player already in it.
    pub fn check_join(&self, id: PlayerId, spectate: bool, max_spectators: u32) -> Result<(), JoinError> {
        let players = self.members.iter().filter(|m| !m.spectate).count() as u32;
        let watchers = self.members.len() as u32 - players;
        let full = self.settings.daily.is_some()
            || if spectate { watchers >= max_spectators } else { players >= self.settings.max_players };
        if full || self.is_member(id) {
            return Err(JoinError::Full);
        }
        Ok(())
    }

    /// Whether screen `id` may join: `Full` for a daily room (a room of
    /// one), a room with all the screens it takes, or one already in it.
    pub fn check_screen(&self, id: PlayerId, max_screens: u32) -> Result<(), JoinError> {
        let screens = self.members.iter().filter(|m| m.screen).count() as u32;
        if self.settings.daily.is_some() || screens >= max_screens || self.is_member(id) {
            return Err(JoinError::Full);
        }
        Ok(())
    }
}
