//! Leagues over HTTP (issue 15), beside the socket's messages: the league
//! link `/l/{code}` (the web client, which reads the code from the path),
//! `GET /api/leagues` (yours, with today's standing), `POST /api/leagues`
//! (make one), `POST /api/leagues/{code}/join`, `/leave`, `/remove` (the
//! owner removes a member) and `/new-code` (the owner gives the league a
//! new code), a league's
//! table per board and its standings. The player is the one whose token
//! comes in `Authorization: Bearer <token>`; the reads need none (no `you`).
//! A lookup by code may bring the league's invite key as `?k=KEY` (the
//! link's), which spares it the address's failed-join budget.
//! Thin: the leagues themselves are [`crate::daily`]'s, and so are the
//! per-address budgets ([`guard::league`]: failed joins, league joins,
//! shared with the socket; the daily hook: leagues made); a refusal's
//! status is [`crate::daily::DailyError::http`]'s.

use std::net::IpAddr;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;

use mazerace_protocol::daily::DailyDate;
use mazerace_protocol::{Game, Size};

use super::HttpEnv;
use super::{api_error, bearer};
use crate::daily::{guard, DailyError, LeagueAsker, LeagueOp};
use crate::edge::ClientAddr;

pub fn routes() -> Router<Arc<HttpEnv>> {
    Router::new()
        .route("/l/{code}", get(league_page))
        .route("/api/leagues", get(mine).post(create))
        .route("/api/leagues/{code}/join", post(join))
        .route("/api/leagues/{code}/leave", post(leave))
        .route("/api/leagues/{code}/remove", post(remove))
        .route("/api/leagues/{code}/new-code", post(new_code))
        .route("/api/leagues/{code}/standings", get(standings))
        .route("/api/leagues/{code}/{date}/{game}/{size}", get(board))
}

async fn league_page(Path(_code): Path<String>, headers: HeaderMap) -> Response {
    crate::assets::serve("index.html", &headers).await
}

/// Runs `op` for `token` (none: an anonymous read) from `address` and
/// answers its JSON.
async fn run(env: &HttpEnv, address: IpAddr, token: Option<String>, name: String, op: LeagueOp) -> Response {
    let Some(hook) = env.daily.clone() else {
        return super::daily::failed(&DailyError::NotConfigured, "leagues");
    };
    let asker = LeagueAsker { token: token.unwrap_or_default(), name, address };
    match guard::league(hook.as_ref(), &env.joins, &env.league_joins, asker, op).await {
        // The body is the message without its `type` (as the other daily routes).
        Ok(msg) => {
            let mut v = serde_json::to_value(&msg).unwrap_or_default();
            if let Some(o) = v.as_object_mut() {
                o.remove("type");
            }
            Json(v).into_response()
        }
        Err(e) => super::daily::failed(&e, "leagues"),
    }
}

fn needs_token() -> Response {
    api_error(StatusCode::UNAUTHORIZED, "send your token: Authorization: Bearer <token>")
}

async fn mine(State(env): State<Arc<HttpEnv>>, ClientAddr(peer): ClientAddr, headers: HeaderMap) -> Response {
    let Some(token) = bearer(&headers) else { return needs_token() };
    run(&env, peer.ip(), Some(token), String::new(), LeagueOp::Mine).await
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CreateBody {
    /// The league's name.
    name: String,
    /// Your name in it (validated like `hello`'s).
    player_name: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JoinBody {
    player_name: String,
}

fn player_name(raw: &str) -> Result<String, &'static str> {
    crate::names::validate(raw)
}

/// Making a league is held to the address's budget for making them, the
/// socket's too (in the daily hook).
async fn create(
    State(env): State<Arc<HttpEnv>>,
    ClientAddr(peer): ClientAddr,
    headers: HeaderMap,
    Json(body): Json<CreateBody>,
) -> Response {
    let Some(token) = bearer(&headers) else { return needs_token() };
    let name = match player_name(&body.player_name) {
        Ok(n) => n,
        Err(why) => return api_error(StatusCode::BAD_REQUEST, why),
    };
    run(&env, peer.ip(), Some(token), name, LeagueOp::Create { name: body.name }).await
}

/// Joining spends the address's league joins, and a code without its key
/// is held to the failed-join budget: both in `run` ([`guard::league`]),
/// one budget each with the socket's `join_league`.
async fn join(
    State(env): State<Arc<HttpEnv>>,
    ClientAddr(peer): ClientAddr,
    Path(code): Path<String>,
    Query(invite): Query<Invite>,
    headers: HeaderMap,
    Json(body): Json<JoinBody>,
) -> Response {
    let Some(token) = bearer(&headers) else { return needs_token() };
    let op = LeagueOp::Join { code, key: invite.k };
    let name = match player_name(&body.player_name) {
        Ok(n) => n,
        Err(why) => return api_error(StatusCode::BAD_REQUEST, why),
    };
    run(&env, peer.ip(), Some(token), name, op).await
}

async fn leave(
    State(env): State<Arc<HttpEnv>>,
    ClientAddr(peer): ClientAddr,
    Path(code): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(token) = bearer(&headers) else { return needs_token() };
    run(&env, peer.ip(), Some(token), String::new(), LeagueOp::Leave { code }).await
}

/// A lookup's invite key, `?k=KEY` as the league's link carries it.
#[derive(Deserialize)]
struct Invite {
    k: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RemoveBody {
    /// The member's `member` in the standings.
    member: String,
}

/// The owner removes a member (`remove_member`).
async fn remove(
    State(env): State<Arc<HttpEnv>>,
    ClientAddr(peer): ClientAddr,
    Path(code): Path<String>,
    headers: HeaderMap,
    Json(body): Json<RemoveBody>,
) -> Response {
    let Some(token) = bearer(&headers) else { return needs_token() };
    run(&env, peer.ip(), Some(token), String::new(), LeagueOp::Remove { code, member: body.member }).await
}

/// The owner gives the league a new code (`new_league_code`).
async fn new_code(
    State(env): State<Arc<HttpEnv>>,
    ClientAddr(peer): ClientAddr,
    Path(code): Path<String>,
    headers: HeaderMap,
) -> Response {
    let Some(token) = bearer(&headers) else { return needs_token() };
    run(&env, peer.ip(), Some(token), String::new(), LeagueOp::NewCode { code }).await
}

#[derive(Deserialize)]
struct Days {
    days: Option<u32>,
    k: Option<String>,
}

async fn standings(
    State(env): State<Arc<HttpEnv>>,
    ClientAddr(peer): ClientAddr,
    Path(code): Path<String>,
    Query(q): Query<Days>,
    headers: HeaderMap,
) -> Response {
    let op = LeagueOp::Standings { code, days: q.days.unwrap_or(7), key: q.k };
    run(&env, peer.ip(), bearer(&headers), String::new(), op).await
}

async fn board(
    State(env): State<Arc<HttpEnv>>,
    ClientAddr(peer): ClientAddr,
    Path((code, date, game, size)): Path<(String, String, String, String)>,
    Query(invite): Query<Invite>,
    headers: HeaderMap,
) -> Response {
    let (Ok(game), Ok(size)) = (game.parse::<Game>(), size.parse::<Size>()) else {
        return api_error(StatusCode::NOT_FOUND, "no such game or size");
    };
    let date = match date.parse::<DailyDate>() {
        Ok(d) => d,
        Err(e) => return api_error(StatusCode::BAD_REQUEST, e.to_string()),
    };
    let op = LeagueOp::Board { code, game, size, date: Some(date), key: invite.k };
    run(&env, peer.ip(), bearer(&headers), String::new(), op).await
}
