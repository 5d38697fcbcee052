// Seed 002 (Interop), "Authorize edge requests", TypeScript. Only the import differs.
import { authorizeEdge, edgeDenialChallenge } from '@agdx/agents';

// --- seed text ---
const denial = authorizeEdge(
  { audience: ["agents.example"], scopes: ["tool:read"] },
  "agents.example",
  "tool:write"
)
if (denial !== undefined) {
  const challenge = edgeDenialChallenge(denial)
  // --- end of seed text ---
  if (challenge !== 'Bearer scope="tool:write"') throw new Error(`unexpected challenge ${String(challenge)}`);
  console.log(`denied (${denial.kind}), challenge: ${challenge}`);
  // --- seed text ---
}
// --- end of seed text ---
