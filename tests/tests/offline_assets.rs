//! What offline play needs from the HTTP side: `GET /version.json`, and the
//! service worker and the page's version module served with that version
//! (and the list of files to cache) filled in, never cached without asking.

use mazerace_tests::serde_json::{self, Value};
use mazerace_tests::TestServer;

#[tokio::test]
async fn version_json_sw_and_version_module_agree() {
    let srv = TestServer::start().await;
    let v = srv.get("/version.json").await;
    assert_eq!(v.status, 200);
    assert_eq!(v.header("content-type"), Some("application/json"));
    assert_eq!(v.header("cache-control"), Some("no-cache"));
    let body: Value = serde_json::from_slice(&v.body).unwrap();
    let version = body["version"].as_str().unwrap().to_owned();
    assert!(version.len() == 16 && version.bytes().all(|b| b.is_ascii_hexdigit()), "{version}");
    assert_eq!(body, serde_json::json!({ "version": version }), "nothing else in it");
    // Stable: the same files give the same version.
    assert_eq!(srv.get("/version.json").await.body, v.body);

    let sw = srv.get("/sw.js").await;
    assert_eq!(sw.status, 200);
    assert_eq!(sw.header("content-type"), Some("text/javascript; charset=utf-8"));
    assert_eq!(sw.header("cache-control"), Some("no-cache"));
    let text = sw.text();
    assert!(text.contains(&format!("const VERSION = '{version}';")), "{text}");
    assert!(!text.contains("__MAZERACE_VERSION__") && !text.contains("/*MAZERACE_FILES*/"));
    let files_line = text.lines().find(|l| l.starts_with("const FILES = ")).unwrap();
    let files: Vec<String> =
        serde_json::from_str(files_line.trim_start_matches("const FILES = ").trim_end_matches(';')).unwrap();
    for f in
        ["/", "/index.html", "/style.css", "/js/rules.js", "/js/offline/board.js", "/js/offline/version.js"]
    {
        assert!(files.iter().any(|x| x == f), "{f} in {files:?}");
    }
    assert!(!files.iter().any(|x| x == "/sw.js"), "the worker does not cache itself");
    for f in &files {
        assert_eq!(srv.get(f).await.status, 200, "{f} is served");
    }
    // Revalidation works on the filled-in file too.
    let etag = sw.header("etag").unwrap().to_owned();
    assert!(etag.contains(&version), "{etag}");
    assert_eq!(srv.get_with("/sw.js", &format!("If-None-Match: {etag}\r\n")).await.status, 304);

    let module = srv.get("/js/offline/version.js").await;
    assert!(module.text().contains(&format!("export const VERSION = '{version}';")), "{}", module.text());
    srv.stop().await;
}
