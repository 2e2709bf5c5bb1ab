# why: no save_checkpoint at all
# expect: seis-campos=falhou
# says: save_checkpoint
import json

print(json.dumps({"ok": True}))
