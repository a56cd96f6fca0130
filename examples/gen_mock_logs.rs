//! Writes a large, deterministic Mock `QueryLogsOutput` for benchmarks.
//!
//! `cargo run --release --example gen_mock_logs -- ENTRIES > big.json`
//!
//! Messages mix what production logs carry: Java stack traces, Chinese e-commerce lines, SQL,
//! secrets, pod names, IPs, e-mails and plain INFO chatter. The same ENTRIES always gives the same
//! bytes (a fixed-seed xorshift generator, no wall clock).

use std::io::{BufWriter, Write};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const SERVICES: &[&str] = &[
    "payment-service",
    "order-service",
    "inventory-service",
    "gateway",
    "user-service",
    "notification-service",
];
const HASH: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

fn pod(rng: &mut Rng, service: &str) -> String {
    let mut s = format!("pod-{service}-");
    for _ in 0..9 {
        s.push(HASH[rng.below(HASH.len() as u64) as usize] as char);
    }
    s.push('-');
    for _ in 0..5 {
        s.push(HASH[rng.below(HASH.len() as u64) as usize] as char);
    }
    s
}

fn message(rng: &mut Rng, service: &str) -> (&'static str, String) {
    let ip = format!(
        "10.{}.{}.{}",
        rng.below(255),
        rng.below(255),
        1 + rng.below(253)
    );
    let order = 20261129000000000u64 + rng.below(1_000_000);
    let ms = 10 + rng.below(5000);
    match rng.below(12) {
        0 => (
            "INFO",
            format!(
                "订单创建成功 orderId={order} userId={} 耗时 {ms}ms",
                rng.below(100_000)
            ),
        ),
        1 => (
            "INFO",
            format!("GET /api/v1/orders/{order} 200 {ms}ms client={ip}"),
        ),
        2 => (
            "WARN",
            format!(
                "调用支付网关超时，重试第 {} 次 url=https://pay-gw.internal.example.com/v2/charge?token=tok_{:016x} cost={ms}ms",
                1 + rng.below(3),
                rng.next()
            ),
        ),
        3 => (
            "ERROR",
            format!(
                "支付失败 orderId={order}: java.net.SocketTimeoutException: Read timed out\n\tat java.net.SocketInputStream.socketRead0(Native Method)\n\tat com.acme.pay.GatewayClient.charge(GatewayClient.java:118)\n\tat com.acme.pay.PaymentService.pay(PaymentService.java:64)\nCaused by: java.io.IOException: connection reset by {ip}:8443"
            ),
        ),
        4 => (
            "ERROR",
            format!(
                "Failed to connect to MySQL jdbc:mysql://order_rw:S3cret{}@mysql-master-0{}.prod.internal:3306/orders after 3 attempts",
                rng.below(1000),
                rng.below(4)
            ),
        ),
        5 => (
            "WARN",
            format!(
                "# Query_time: {}.{:03}  Rows_examined: {} SELECT * FROM orders WHERE user_email = 'user{}@example.com' AND status = 'PAID' LIMIT 1",
                rng.below(9),
                rng.below(1000),
                rng.below(3_000_000),
                rng.below(10_000)
            ),
        ),
        6 => (
            "INFO",
            format!(
                "库存扣减成功 SKU=SKU-{} version={} remaining={}",
                rng.below(1_000_000),
                rng.below(50),
                rng.below(10_000)
            ),
        ),
        7 => (
            "WARN",
            format!(
                "Pod {} in namespace prod: Liveness probe failed: HTTP probe failed with statuscode: 503",
                pod(rng, service)
            ),
        ),
        8 => (
            "INFO",
            format!(
                "user login ok user=u{} from {ip} session={:032x}",
                rng.below(100_000),
                u128::from(rng.next()) << 64 | u128::from(rng.next())
            ),
        ),
        9 => (
            "DEBUG",
            format!("cache hit key=order:{order} ttl={}s", rng.below(3600)),
        ),
        10 => (
            "ERROR",
            format!(
                "upstream {service} returned 503 for POST /api/v1/pay (client {ip}) Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI{}In0.c2ln{:x}",
                rng.below(99999),
                rng.next()
            ),
        ),
        _ => (
            "INFO",
            format!(
                "发送短信通知给 user{}@example.com 成功 pid={}",
                rng.below(100_000),
                1000 + rng.below(60000)
            ),
        ),
    }
}

fn main() -> std::io::Result<()> {
    let entries: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    write!(
        out,
        "{{\"success\":true,\"region\":\"cn-hangzhou\",\"log_topic\":\"application-logs\",\"query\":\"payment\",\"logs\":["
    )?;
    for i in 0..entries {
        let service = rng.pick(SERVICES);
        let (level, msg) = message(&mut rng, service);
        let secs = i * 3600 / entries.max(1);
        let stamp = format!(
            "2026-11-29 {:02}:{:02}:{:02}",
            9 + secs / 3600,
            (secs / 60) % 60,
            secs % 60
        );
        if i > 0 {
            out.write_all(b",")?;
        }
        let entry = serde_json::json!({
            "timestamp": stamp, "level": level, "service": service, "instance": pod(&mut rng, service),
            "message": msg, "metrics": {"cpu": rng.below(100), "mem_mb": rng.below(4096)},
        });
        serde_json::to_writer(&mut out, &entry)?;
    }
    write!(
        out,
        "],\"total\":{entries},\"message\":\"成功查询到 {entries} 条日志\"}}"
    )?;
    out.flush()
}
