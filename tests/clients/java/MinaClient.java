// One Apache MINA SSHD client connection (org.apache.sshd:sshd-core). Args: HOST PORT [USER KEYFILE COMMAND].
// Without a key it connects and stops once the key exchange has begun (what `sshbench clients record` reads);
// with one (ECDSA: MINA reads ed25519 keys only with an extra library) it logs in, runs COMMAND, prints its
// output, exits 0.
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.keyprovider.FileKeyPairProvider;

public class MinaClient {
    public static void main(String[] args) throws Exception {
        SshClient client = SshClient.setUpDefaultClient();
        String user = args.length > 2 ? args[2] : "x";
        if (args.length > 3) {
            client.setKeyIdentityProvider(new FileKeyPairProvider(Paths.get(args[3])));
        }
        client.start();
        int status = 0;
        try (ClientSession session = client.connect(user, args[0], Integer.parseInt(args[1]))
                .verify(20, TimeUnit.SECONDS).getSession()) {
            session.auth().verify(20, TimeUnit.SECONDS);
            if (args.length > 4) {
                System.out.print(session.executeRemoteCommand(args[4]));
            }
        } catch (Exception e) {
            System.err.println(e);
            status = 1;
        } finally {
            client.stop();
        }
        System.exit(status);
    }
}
