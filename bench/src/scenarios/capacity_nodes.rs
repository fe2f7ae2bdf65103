//! The capacity sweep on two nodes behind nginx (`--two-nodes`, issue 14):
//! nodes A and B on one PostgreSQL (a throwaway cluster, or the one
//! `--database-url` names; a fresh schema per point), in front of them a
//! throwaway nginx running the shipped `deploy/nginx.conf`. Hosts connect to
//! `/ws` (nginx spreads them to the node with fewer connections) and make
//! their rooms; the others join with `/ws?room=CODE`, which nginx routes to
//! the code's node, as the web client does (a join on the wrong node would
//! be refused `wrong_node` and fail the point). The same numbers of players
//! as the one-node sweep, on the same machine, in a table beside it.
//!
//! Bounded: the same points as the one-node sweep (no retries, no
//! bisection; a miss does not stop it, so the tables compare row by row);
//! nginx holds two descriptors per player, so the points stop at half the
//! open-file limit.
//!
//! [`run_all`] is the capacity scenario's entry: the one-node sweep
//! (`capacity.rs`, which knows nothing of nodes), then this beside it.

use super::capacity::{point, Under, HEADERS};
use super::Ctx;
use crate::nodes::{nginx_bin, Postgres};
use crate::report::{fmt_count, Section, Table};

/// Two-node tables for the room sizes and player counts the one-node sweep ran.
/// The capacity sweep, then (with `--two-nodes`) the same points on two
/// nodes behind nginx, in one section.
pub async fn run_all(ctx: &Ctx) -> Section {
    let (mut sec, ran) = super::capacity::run(ctx).await;
    if ctx.two_nodes && !sec.failed {
        run(ctx, &ran, &mut sec).await;
    }
    sec
}

async fn run(ctx: &Ctx, ran: &[(usize, Vec<usize>)], sec: &mut Section) {
    if let Err(e) = nginx_bin() {
        sec.fail(format!("--two-nodes: {e:#}"));
        return;
    }
    let pg = match Postgres::given_or_throwaway(ctx.store_database_url.as_deref()) {
        Ok(pg) => pg,
        Err(e) => {
            sec.fail(format!("--two-nodes: PostgreSQL: {e:#}"));
            return;
        }
    };
    // Each player is two descriptors in nginx (client and node side).
    let cap = (ctx.files.soft.saturating_sub(200) / 2) as usize;
    for (s, ns) in ran {
        let mut headers: Vec<&str> = HEADERS.to_vec();
        headers.extend(["nginx CPU", "players on A / B"]);
        let mut table = Table::new(&headers);
        let mut capped = false;
        for &n in ns {
            let n = if n > cap {
                capped = true;
                cap / s * s
            } else {
                n
            };
            if table.rows.last().is_some_and(|r| r[1] == fmt_count(n as f64)) {
                break;
            }
            eprintln!("capacity, two nodes behind nginx: rooms of {s}, {n} players");
            match point(ctx, *s, n, Under::Two(&pg)).await {
                // Every point the one-node sweep ran, passed or not, so
                // the two tables compare row by row.
                Ok(p) => table.row(p.row),
                Err(e) => {
                    sec.fail(format!("two nodes, rooms of {s}, N = {n}: the point failed to run: {e:#}"));
                    break;
                }
            }
            if capped {
                break;
            }
        }
        sec.tables.push(table);
        if sec.failed {
            break;
        }
    }
    sec.note(format!(
        "Two nodes: `mazerace serve --node-id A|B --trusted-proxy 127.0.0.1` on one PostgreSQL ({}), behind one \
         nginx process (`master_process off`) running deploy/nginx.conf on loopback; the same machine, load \
         generator and points as the one-node table above it, so the two nodes and nginx share its two cores. \
         'server CPU' and 'server RSS' are both nodes together; nginx holds two descriptors per player, so its \
         points stop at {} players here.",
        if ctx.store_database_url.is_some() { "the one --database-url names" } else { "a throwaway initdb cluster" },
        fmt_count(cap as f64)
    ));
}
