package oauthpage

// logoSVG is the logo named by the metadata document's logo_uri: a wave
// crest on a rounded blue square. It uses presentation attributes only (no
// style element, script or link), and is served with a sandboxing CSP and
// nosniff, so even a browser that opens it as a document runs nothing.
const logoSVG = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 64 64" role="img" aria-label="SurfSense">
<title>SurfSense</title>
<rect width="64" height="64" rx="14" fill="#1d4ed8"/>
<path d="M8 40c6-14 16-22 28-22 8 0 14 4 16 10-4-3-9-4-13-2-5 3-5 10 1 14H8z" fill="#ffffff"/>
<path d="M8 48c6 0 8-3 14-3s8 3 14 3 8-3 14-3 6 2 6 2v6H8z" fill="#93c5fd"/>
</svg>
`

// logoCacheControl lets anyone cache the logo for a day.
const logoCacheControl = "public, max-age=86400"
