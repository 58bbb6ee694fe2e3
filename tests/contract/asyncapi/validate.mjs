// Parses and validates an AsyncAPI document with @asyncapi/parser: prints its diagnostics and exits
// non-zero on any error (warnings are printed, not fatal).
import { readFileSync } from "node:fs";
import { Parser, DiagnosticSeverity } from "@asyncapi/parser";

const path = process.argv[2];
const parser = new Parser();
const { document, diagnostics } = await parser.parse(readFileSync(path, "utf8"), { source: path });
const errors = diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error);
for (const d of diagnostics) {
  const level = d.severity === DiagnosticSeverity.Error ? "error" : "note";
  console.log(`${level}: ${d.code}: ${d.message} at ${d.path.join("/")}`);
}
if (errors.length > 0 || document === undefined) {
  console.log(`${errors.length} error(s)`);
  process.exit(1);
}
console.log(`valid: AsyncAPI ${document.version()}, ${document.allMessages().length} messages, ${document.channels().length} channel(s)`);
