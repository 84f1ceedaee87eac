// Builds web/dist/ (committed, embedded in the server by src/http/web.rs): app.js bundled
// and minified by esbuild, app.css minified, index.html as written. The output depends on
// the sources only, so CI can rebuild it and compare (scripts/check-web.sh).
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";

const here = new URL(".", import.meta.url).pathname;
mkdirSync(`${here}dist`, { recursive: true });
const common = { bundle: true, minify: true, legalComments: "none", logLevel: "warning", target: "es2022", charset: "utf8" };
await build({ ...common, entryPoints: [`${here}src/main.ts`], outfile: `${here}dist/app.js`, format: "esm" });
await build({ ...common, entryPoints: [`${here}src/app.css`], outfile: `${here}dist/app.css` });
for (const name of ["index.html", "favicon.svg"]) copyFileSync(`${here}src/${name}`, `${here}dist/${name}`);
