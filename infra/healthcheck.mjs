// Docker's HEALTHCHECK for every role: GET the URL given, or the ops listener's readiness, and exit
// 0 on a 2xx answer within 3 seconds, 1 otherwise. Plain Node (no tsx): it runs every few seconds.
const url = process.argv[2] ?? `http://127.0.0.1:${process.env.OPS_PORT || 9100}/_pressroom/readyz`;
try {
  const response = await fetch(url, { signal: AbortSignal.timeout(3000) });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
