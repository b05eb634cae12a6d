// The CLI's entry (out/main/cli.js, run by bin/gatehouse.js; tests run it with tsx): the commands are in cli/.
import { main } from './cli/main.js';

main(process.argv.slice(2)).then((code) => process.exit(code));
