//! The API client: what comes back for the model when the server is slow,
//! unreachable, too talkative or unhappy, and that a call which cannot become a
//! request is never sent.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a test fails loudly"
)]

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use toolgate::registry::{ApiClient, ApiRequest};
use toolgate::Policy;

/// A server that answers every request with `status` and `body` after
/// `delay`, counting the requests.
fn server(status: u16, body: &'static str, delay: Duration) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    let count = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&count);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                    break;
                }
            }
            c.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(delay);
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (address, count)
}

fn get(url: &str) -> ApiRequest {
    ApiRequest {
        method: String::from("GET"),
        path: url.to_owned(),
        query: Vec::new(),
        url: url.to_owned(),
        body: None,
    }
}

#[test]
fn results_and_errors_for_the_model() {
    let policy = Policy::embedded().unwrap();
    let (ok, _) = server(200, r#"{"dat":[1,2],"error":""}"#, Duration::ZERO);
    assert_eq!(
        ApiClient::new(&policy, &ok).execute(&get("/x")),
        Ok(String::from("[1,2]"))
    );

    let (missing, _) = server(
        404,
        r#"{"dat":null,"error":"no such endpoint"}"#,
        Duration::ZERO,
    );
    assert_eq!(
        ApiClient::new(&policy, &missing).execute(&get("/x")),
        Err(String::from("HTTP 404: no such endpoint"))
    );

    let (big, _) = server(
        200,
        "0123456789012345678901234567890123456789",
        Duration::ZERO,
    );
    let err = ApiClient::new(&policy, &big)
        .max_response_bytes(16)
        .execute(&get("/x"))
        .unwrap_err();
    assert!(err.contains("larger than 16 bytes"), "{err}");

    let (slow, _) = server(200, "{}", Duration::from_millis(1500));
    let err = ApiClient::new(&policy, &slow)
        .timeout(Duration::from_millis(200))
        .execute(&get("/x"))
        .unwrap_err();
    assert!(err.contains("no answer within"), "{err}");

    // A port nobody listens on.
    let closed = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let err = ApiClient::new(&policy, format!("http://{closed}"))
        .execute(&get("/x"))
        .unwrap_err();
    assert!(err.starts_with("the request failed"), "{err}");
}

#[test]
fn a_call_that_cannot_become_a_request_is_never_sent() {
    let policy = Policy::embedded().unwrap();
    let engine = policy
        .engine(r#"{"tools":{"rules":{"kind":"api","method":"GET","url":"/groups/:id/rules"}}}"#)
        .unwrap();
    let (address, count) = server(200, "{}", Duration::ZERO);
    let client = ApiClient::new(&policy, &address).header("Authorization", "Bearer t");
    let err = client.executor(&engine, "rules")(r#"{"id":"1/../../admin"}"#).unwrap_err();
    assert!(err.contains("path parameter `id`"), "{err}");
    let err = client.executor(&engine, "rules")("{}").unwrap_err();
    assert!(err.contains("missing required parameters: `id`"), "{err}");
    assert_eq!(count.load(Ordering::SeqCst), 0);
    assert_eq!(
        client.executor(&engine, "rules")(r#"{"id":7}"#),
        Ok(String::from("{}"))
    );
    assert_eq!(count.load(Ordering::SeqCst), 1);
    // Credentials never show in debug output.
    assert!(!format!("{client:?}").contains("Bearer t"));
}
