// A key's custom host in its table row and its panel. Keys on one machine differ only by port, so host:port always shows
// whole; when the row is narrow the scheme and the path give way (an ellipsis in the middle of the URL).
export function splitHost(url: string): { scheme: string; hostPort: string; path: string } {
  try {
    const parsed = new URL(url);
    const path = `${parsed.pathname === '/' ? '' : parsed.pathname}${parsed.search}`;
    return { scheme: `${parsed.protocol}//`, hostPort: parsed.host, path };
  } catch {
    return { scheme: '', hostPort: url, path: '' };
  }
}

export function KeyHost({ url }: { url: string }) {
  const { scheme, hostPort, path } = splitHost(url);
  return (
    <span className="key-host muted mono small" title={url}>
      <span className="key-host-shrink">{scheme}</span>
      <span className="key-host-whole">{hostPort}</span>
      <span className="key-host-shrink">{path}</span>
    </span>
  );
}
