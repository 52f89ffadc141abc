// One sshj connection (com.hierynomus:sshj). Args: HOST PORT [USER KEYFILE COMMAND]. Without a key it connects
// and stops once the key exchange has begun (what `sshbench clients record` reads); with one it logs in, runs
// COMMAND, prints its output, exits 0.
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import net.schmizz.sshj.SSHClient;
import net.schmizz.sshj.connection.channel.direct.Session;
import net.schmizz.sshj.transport.verification.PromiscuousVerifier;

public class SshjClient {
    public static void main(String[] args) throws Exception {
        SSHClient client = new SSHClient();
        client.addHostKeyVerifier(new PromiscuousVerifier());
        client.setConnectTimeout(20000);
        client.setTimeout(20000);
        try {
            client.connect(args[0], Integer.parseInt(args[1]));
            if (args.length > 4) {
                client.authPublickey(args[2], args[3]);
                try (Session session = client.startSession()) {
                    Session.Command command = session.exec(args[4]);
                    InputStream out = command.getInputStream();
                    ByteArrayOutputStream read = new ByteArrayOutputStream();
                    byte[] buffer = new byte[4096];
                    for (int n; (n = out.read(buffer)) > 0; ) {
                        read.write(buffer, 0, n);
                    }
                    System.out.print(read.toString("UTF-8"));
                }
            }
        } catch (Exception e) {
            System.err.println(e);
            System.exit(1);
        } finally {
            client.close();
        }
    }
}
