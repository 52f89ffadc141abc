// One Apache MINA SSHD client connection (org.apache.sshd:sshd-core). Args: HOST PORT: it connects and stops
// once the key exchange has begun (what `sshbench clients record` reads).
import java.util.concurrent.TimeUnit;
import org.apache.sshd.client.SshClient;

public class MinaClient {
    public static void main(String[] args) throws Exception {
        SshClient client = SshClient.setUpDefaultClient();
        client.start();
        try {
            client.connect("x", args[0], Integer.parseInt(args[1])).verify(20, TimeUnit.SECONDS).getSession()
                    .auth().verify(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.err.println(e);
        } finally {
            client.stop();
        }
    }
}
