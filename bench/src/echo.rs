//! The limit: a bare tokio-tungstenite echo server with the race server's
//! socket settings (read buffer, write gathering, max message, write buffer
//! cap, all taken from the server crate; TCP_NODELAY) on the same kind of
//! runtime. It answers every
//! text frame with itself, writing each batch of ready answers with one
//! flush, which is the best any server on this stack can do per message.
//! Runs as `mazerace-bench echo-server` in its own process so its CPU time
//! is measured apart from the load generator's.

use anyhow::{bail, Result};
use futures_util::{FutureExt, SinkExt, StreamExt};
use std::io::Write;
use std::net::SocketAddr;
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

/// The race server's per-socket settings, from its own defaults.
pub fn server_config() -> WebSocketConfig {
    let race = mazerace_server::config::Config::default();
    WebSocketConfig::default()
        .read_buffer_size(race.read_buffer_bytes)
        .write_buffer_size(mazerace_server::config::WRITE_BUFFER_BYTES)
        .max_message_size(Some(race.max_message_bytes))
        .max_frame_size(Some(race.max_message_bytes))
        .max_write_buffer_size(race.write_buffer_max)
}

/// `runtime`: `current` (one thread) or `multi` (tokio's multi-thread
/// scheduler, one worker per core).
pub fn run(bind: SocketAddr, runtime: &str) -> Result<()> {
    let rt = match runtime {
        "current" => tokio::runtime::Builder::new_current_thread().enable_all().build()?,
        "multi" => tokio::runtime::Builder::new_multi_thread().enable_all().build()?,
        other => bail!("unknown runtime {other:?} (current or multi)"),
    };
    rt.block_on(async move {
        let listener = TcpListener::bind(bind).await?;
        let addr = listener.local_addr()?;
        let mut out = std::io::stdout();
        writeln!(out, "echo listening on http://{addr}")?;
        out.flush()?;
        loop {
            let (stream, _) = match listener.accept().await {
                Ok(s) => s,
                // Out of file descriptors and the like: keep serving the others.
                Err(_) => {
                    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
                    continue;
                }
            };
            tokio::spawn(serve(stream));
        }
    })
}

async fn serve(stream: TcpStream) {
    if stream.set_nodelay(true).is_err() {
        return;
    }
    let Ok(mut ws) = tokio_tungstenite::accept_async_with_config(stream, Some(server_config())).await else {
        return;
    };
    while let Some(Ok(msg)) = ws.next().await {
        if !echo(&mut ws, msg).await {
            return;
        }
        // Echo everything already readable, then flush once.
        while let Some(Some(Ok(msg))) = ws.next().now_or_never() {
            if !echo(&mut ws, msg).await {
                return;
            }
        }
        if ws.flush().await.is_err() {
            return;
        }
    }
}

/// Queue the answer to one frame; false when the connection is done.
async fn echo(ws: &mut tokio_tungstenite::WebSocketStream<TcpStream>, msg: Message) -> bool {
    match msg {
        Message::Text(t) => ws.feed(Message::Text(t)).await.is_ok(),
        Message::Close(_) => false,
        _ => true,
    }
}
